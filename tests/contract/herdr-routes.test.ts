// Routes that need herdr, against the simulator: their real 200 bodies match the shapes
// GET /openapi.json documents (manifest valibot schema and the published JSON Schema).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import { createConformance } from './conform.ts'

let stack: Stack
let conforms: ReturnType<typeof createConformance>
let pane: string
let shellPane: string

async function until<T>(fn: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const got = await fn()
    if (got !== undefined) return got
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const req = (path: string, init?: Parameters<Stack['bridge']['request']>[1]) => stack.bridge.request(path, init)

beforeAll(async () => {
  stack = await startStack()
  const cwd = join(stack.home, 'repo')
  mkdirSync(cwd, { recursive: true })
  const doc = await (await req('/openapi.json', { token: null })).json()
  conforms = createConformance(stack.bridge, doc)
  const r = await stack.sim.request('sim.create_agent_pane', {
    kind: 'claude',
    cwd,
    script: { start: 'permission', permission: { name: 'Bash', input: { command: 'ls', description: 'List files' }, category: 'tool_approval' } },
  })
  pane = r.pane.pane_id
  const ws = await stack.sim.request('workspace.create', { cwd, focus: false })
  shellPane = ws.root_pane.pane_id
})

afterAll(async () => {
  await stack?.close()
})

describe('herdr-backed routes match their documented 200 bodies', () => {
  it('GET /snapshot', async () => {
    const body = await conforms('GET', '/snapshot', await req('/snapshot'))
    expect(body.result.snapshot.agents.map((a: any) => a.pane_id)).toContain(`default/${pane}`.replace(/^default\/default\//, 'default/'))
  })

  it('GET /readyz', async () => {
    expect(await conforms('GET', '/readyz', await req('/readyz', { token: null }))).toEqual({ ok: true, sessions: ['default'] })
  })

  it('GET /agent-state while blocked, with blocked options', async () => {
    const card = await until(async () => {
      const c = await conforms('GET', '/agent-state', await req(`/agent-state?pane=${encodeURIComponent(pane)}`))
      return c.agent_status === 'blocked' && c.blocked?.options?.length ? c : undefined
    }, 'a blocked card')
    expect(card.blocked.options[0]).toEqual(expect.objectContaining({ index: 1, selected: true }))
  })

  it('POST /approve (stale seq, not applied) and POST /send', async () => {
    const body = await conforms('POST', '/approve', await req('/approve', { method: 'POST', json: { agent: pane, seq: -5 } }))
    expect(body.applied).toBe(false)
    expect(await conforms('POST', '/send', await req('/send', { method: 'POST', json: { pane: shellPane, text: 'true' } }))).toEqual({ ok: true })
  })

  it('POST /herdr reads and a write', async () => {
    for (const method of ['session.snapshot', 'workspace.list', 'pane.list', 'agent.list', 'tab.list']) {
      const body = await conforms('POST', '/herdr', await req('/herdr', { method: 'POST', json: { method, params: {} } }))
      expect(typeof body.result, method).toBe('object')
    }
    await conforms('POST', '/herdr', await req('/herdr', { method: 'POST', json: { method: 'pane.focus', params: { pane_id: shellPane } } }))
  })

  it('POST /agent-mode/cycle', async () => {
    const body = await conforms('POST', '/agent-mode/cycle', await req('/agent-mode/cycle', { method: 'POST', json: { pane } }))
    expect(body).toEqual(expect.objectContaining({ ok: true, cycled: true }))
  })
})
