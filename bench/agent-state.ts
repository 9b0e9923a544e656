/**
 * GET /agent-state cost. Floors measured in the same run: one raw `agent.get` socket round trip
 * to the simulator (the card needs 3–4 such reads), and splitting the screen into lines (the
 * least any parser does).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startStack } from '../tests/harness/stack.ts'
import { parseClaudeScreen, summarizeClaude } from '../plugins/kind-claude/screen.ts'
import { screenLines } from '../lib/text.ts'

async function time(n: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(20, n); i++) await fn()
  const t = performance.now()
  for (let i = 0; i < n; i++) await fn()
  return (performance.now() - t) / n
}

export async function run(): Promise<void> {
  const screen = readFileSync(join(import.meta.dirname, '../tests/agent-state/fixtures/claude-permission.txt'), 'utf8').repeat(4)
  const floorParse = await time(5000, () => screenLines(screen))
  const parse = await time(5000, () => {
    const p = parseClaudeScreen(screen)
    summarizeClaude({ detection: screen, recent: screen, title: 't', status: 'blocked', blocked: p ?? undefined })
  })
  console.log(`parse+summarize: ${(parse * 1000).toFixed(1)} µs/screen, line split floor ${(floorParse * 1000).toFixed(1)} µs → ${(parse / floorParse).toFixed(1)}×`)

  const stack = await startStack()
  try {
    const r = await stack.sim.request('sim.create_agent_pane', { kind: 'claude', script: { start: 'permission' } })
    const pane = r.pane.pane_id as string
    const n = 200
    const floor = await time(n, () => stack.sim.request('agent.get', { target: pane }))
    const card = await time(n, async () => {
      const res = await stack.bridge.request(`/agent-state?pane=${encodeURIComponent(pane)}`)
      if (res.status !== 200) throw new Error(`agent-state ${res.status}`)
      await res.arrayBuffer()
    })
    console.log(`GET /agent-state (blocked claude): ${card.toFixed(2)} ms, agent.get floor ${floor.toFixed(2)} ms → ${(card / floor).toFixed(1)}×`)
  } finally {
    await stack.close()
  }
}
