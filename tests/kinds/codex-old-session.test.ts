/**
 * A resumed codex session appends to the rollout it began, in that day's folder: the look-up by
 * herdr's session id searches the newest 400 day folders on every call, and older ones once per
 * id, so a session begun 401 or more active days ago still streams and is dated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import { connect } from '../transcript/ws-client.ts'
import { at, meta, userText } from './codex-fixture.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

const OLD = '0188aaaa-0000-7000-8000-0000000000aa'

/** `sessions/YYYY/MM/DD/rollout-…-<id>.jsonl` for a date. */
function rollout(codexHome: string, date: Date, id: string, lines: string[]) {
  const [y, m, d] = date.toISOString().slice(0, 10).split('-')
  const dir = join(codexHome, 'sessions', y, m, d)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `rollout-${y}-${m}-${d}T09-00-00-${id}.jsonl`), lines.join('\n') + '\n')
}

describe('codex: a session older than the newest 400 day folders', () => {
  let stack: Stack
  let cwd: string

  beforeAll(async () => {
    stack = await startStack()
    cwd = join(stack.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    const codexHome = join(stack.home, '.codex')
    // 401 newer days with a session each; the resumed one began before all of them.
    for (let i = 0; i < 401; i++) {
      const id = `0199bbbb-0000-7000-8000-${String(i).padStart(12, '0')}`
      rollout(codexHome, new Date(Date.UTC(2024, 0, 1) + i * 86_400_000), id, [meta(id, cwd), userText(1, `filler ${i}`)])
    }
    rollout(codexHome, new Date(Date.UTC(2022, 5, 15)), OLD, [meta(OLD, cwd), userText(1, 'begun long ago'), userText(2, 'resumed today')])
  }, 60_000)
  afterAll(async () => stack?.close())

  it('is found by its id: it streams, and the snapshot dates it', async () => {
    const pane = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    await reportBusyAgent(stack.sim, pane, { source: 'herdr:codex', agent: 'codex', state: 'working', agent_session_id: OLD })
    const c = await connect(`${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`)
    expect(await c.next()).toMatchObject({ type: 'hello', agent_kind: 'codex', session_id: OLD, total: 2 })
    expect((await c.take(2)).map((f) => f.entry.text)).toEqual(['begun long ago', 'resumed today'])
    c.close()
    const body = (await (await stack.bridge.request('/snapshot')).json()) as GetResponses['/snapshot']
    expect(body.result.snapshot.agents.find((a) => a.pane_id === pane)!.last_activity_ts).toBe(Date.parse(at(2)))
  })
})
