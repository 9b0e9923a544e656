import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { encodeCwd } from '../../plugins/kind-claude/transcript/locate.ts'
import { connect } from './ws-client.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'

let stack: Stack
let cwd: string
let projDir: string

const msg = (i: number, sid = 's1') =>
  JSON.stringify({ type: 'user', uuid: `${sid}-u${i}`, timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, i % 60)).toISOString(), message: { role: 'user', content: `message ${i}` } })

async function agentPane(agent: string, source: string, sessionId?: string): Promise<string> {
  const r = await stack.sim.request('workspace.create', { cwd })
  const pane = r.root_pane.pane_id as string
  await reportBusyAgent(stack.sim, pane, { source, agent, state: 'working', ...(sessionId ? { agent_session_id: sessionId } : {}) })
  return pane
}

const url = (q: string) => `${stack.bridge.wsUrl}/agent-transcript?${q}&token=${stack.bridge.adminToken}`
const plainGet = (q: string) => fetch(`${stack.bridge.url}/agent-transcript?${q}&token=${stack.bridge.adminToken}`)

beforeAll(async () => {
  stack = await startStack()
  cwd = join(stack.home, 'proj')
  mkdirSync(cwd, { recursive: true })
  projDir = join(stack.home, '.claude', 'projects', encodeCwd(cwd))
  mkdirSync(projDir, { recursive: true })
}, 60_000)
afterAll(async () => stack?.close())

describe('/agent-transcript over a real WebSocket', () => {
  it('hello, newest page, backlog_complete, load_older pages, live tail of a half-written line', async () => {
    writeFileSync(join(projDir, 's1.jsonl'), Array.from({ length: 200 }, (_, i) => msg(i + 1)).join('\n') + '\n')
    const pane = await agentPane('claude', 'herdr:claude', 's1')
    const c = await connect(url(`pane=${encodeURIComponent(pane)}`))
    expect(await c.next()).toEqual({
      type: 'hello',
      protocol: 5,
      pane,
      agent_kind: 'claude',
      session_id: 's1',
      backlog_count: 150,
      total: 200,
      has_more: true,
      oldest_loaded_seq: 51,
      has_older: true,
    })
    const page = await c.take(150)
    expect(page.map((f) => [f.type, f.live, f.entry.seq])).toEqual(Array.from({ length: 150 }, (_, i) => ['entry', false, 51 + i]))
    expect(page[0].entry).toEqual({ id: 's1-u51#0', seq: 51, ts: '2025-01-01T00:00:51.000Z', role: 'user', kind: 'message', text: 'message 51', parsed: true })
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 150, has_more: true })

    c.send({ type: 'load_older', before_seq: 51, limit: 30 })
    const older = await c.take(30)
    expect(older.map((f) => [f.live, f.entry.seq])).toEqual(Array.from({ length: 30 }, (_, i) => [false, 21 + i]))
    expect(await c.next()).toEqual({ type: 'page_complete', requested_before_seq: 51, oldest_loaded_seq: 21, has_older: true })
    c.send({ type: 'load_older', before_seq: 21 })
    expect((await c.take(20)).map((f) => f.entry.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 1 + i))
    expect(await c.next()).toEqual({ type: 'page_complete', requested_before_seq: 21, oldest_loaded_seq: 1, has_older: false })
    c.send({ type: 'load_older', before_seq: 1, limit: 1000 })
    expect(await c.next()).toEqual({ type: 'page_complete', requested_before_seq: 1, oldest_loaded_seq: 0, has_older: false })

    const line = msg(201)
    appendFileSync(join(projDir, 's1.jsonl'), line.slice(0, 20))
    appendFileSync(join(projDir, 's1.jsonl'), line.slice(20) + '\n')
    expect(await c.next()).toEqual({
      type: 'entry',
      live: true,
      entry: { id: 's1-u201#0', seq: 201, ts: '2025-01-01T00:00:21.000Z', role: 'user', kind: 'message', text: 'message 201', parsed: true },
    })
    c.close()
  })

  it('roster: subagents frame when it changes, ?subagent= streams the child, session rotation on the same socket', async () => {
    writeFileSync(join(projDir, 'r1.jsonl'), [msg(1, 'r1'), msg(2, 'r1')].join('\n') + '\n')
    const pane = await agentPane('claude', 'herdr:claude', 'r1')
    const c = await connect(url(`pane=${encodeURIComponent(pane)}`))
    const hello = await c.next()
    expect(hello).toMatchObject({ type: 'hello', session_id: 'r1', total: 2, backlog_count: 2, oldest_loaded_seq: 1, has_older: false })
    expect('subagents' in hello).toBe(false)
    await c.take(2)
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 2, has_more: false })

    const sub = join(projDir, 'r1', 'subagents')
    mkdirSync(sub, { recursive: true })
    writeFileSync(join(sub, 'agent-ab12.jsonl'), msg(1, 'child') + '\n')
    writeFileSync(join(sub, 'agent-ab12.meta.json'), JSON.stringify({ agentType: 'explorer', description: 'look', toolUseId: 'toolu_1', spawnDepth: 1 }))
    const row = {
      agent_id: 'ab12',
      tool_use_id: 'toolu_1',
      agent_type: 'explorer',
      description: 'look',
      spawn_depth: 1,
      done: false,
      last_activity_ts: Date.UTC(2025, 0, 1, 0, 0, 1),
    }
    expect(await c.until((f) => f.type === 'subagents')).toEqual({ type: 'subagents', pane, subagents: [row] })

    appendFileSync(join(projDir, 'r1.jsonl'), msg(3, 'r1').replace('message 3', '<task-notification><task-id>ab12</task-id><status>completed</status></task-notification>') + '\n')
    expect((await c.until((f) => f.type === 'entry')).entry.seq).toBe(3)
    expect(await c.until((f) => f.type === 'subagents')).toEqual({ type: 'subagents', pane, subagents: [{ ...row, done: true }] })

    const child = await connect(url(`pane=${encodeURIComponent(pane)}&subagent=ab12`))
    expect(await child.next()).toMatchObject({ type: 'hello', subagent: 'ab12', session_id: 'r1', total: 1, subagents: [{ ...row, done: true }] })
    expect((await child.next()).entry).toMatchObject({ id: 'child-u1#0', seq: 1 })
    expect(await child.next()).toEqual({ type: 'backlog_complete', count: 1, has_more: false })
    child.close()

    writeFileSync(join(projDir, 'r2.jsonl'), [msg(1, 'r2')].join('\n') + '\n')
    await stack.sim.request('pane.report_agent', { pane_id: pane, source: 'herdr:claude', agent: 'claude', state: 'working', agent_session_id: 'r2' })
    expect(await c.until((f) => f.type === 'session_changed')).toEqual({ type: 'session_changed', pane, from: 'r1', to: 'r2' })
    expect(await c.next()).toEqual({
      type: 'hello',
      protocol: 5,
      pane,
      agent_kind: 'claude',
      session_id: 'r2',
      backlog_count: 1,
      total: 1,
      has_more: false,
      oldest_loaded_seq: 1,
      has_older: false,
    })
    expect((await c.next()).entry).toMatchObject({ id: 'r2-u1#0', seq: 1 })
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 1, has_more: false })
    c.close()
  })

  it('a known session without a file streams once the file appears', async () => {
    const pane = await agentPane('claude', 'herdr:claude', 'later1')
    expect((await plainGet(`pane=${encodeURIComponent(pane)}`)).status).toBe(426)
    const c = await connect(url(`pane=${encodeURIComponent(pane)}`))
    expect(await c.next()).toMatchObject({ type: 'hello', session_id: 'later1', total: 0, backlog_count: 0, oldest_loaded_seq: 0, has_older: false })
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 0, has_more: false })
    writeFileSync(join(projDir, 'later1.jsonl'), msg(1, 'later1') + '\n')
    expect(await c.next()).toMatchObject({ type: 'entry', live: true, entry: { seq: 1, id: 'later1-u1#0' } })
    c.close()
  })

  it('a frame other than a well-formed load_older closes with 1000', async () => {
    writeFileSync(join(projDir, 'g1.jsonl'), msg(1, 'g1') + '\n')
    const pane = await agentPane('claude', 'herdr:claude', 'g1')
    for (const bad of ['garbage', JSON.stringify({ type: 'load_older', before_seq: 'x' })]) {
      const c = await connect(url(`pane=${encodeURIComponent(pane)}`))
      await c.until((f) => f.type === 'backlog_complete')
      c.send(bad)
      expect((await c.closed).code).toBe(1000)
    }
  })

  it('plain GET: 404 with a short reason when there is nothing to stream, 426 when there is, 401 without a token', async () => {
    writeFileSync(join(projDir, 'p1.jsonl'), msg(1, 'p1') + '\n')
    const pane = await agentPane('claude', 'herdr:claude', 'p1')
    const hermes = await agentPane('hermes', 'custom:sim')
    const shell = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    const cases: [string, number][] = [
      [`pane=${encodeURIComponent(pane)}`, 426],
      ['pane=w999%3Ap9', 404],
      [`pane=${encodeURIComponent(shell)}`, 404],
      [`pane=${encodeURIComponent(hermes)}`, 404],
      [`pane=${encodeURIComponent(pane)}&subagent=nope`, 404],
      [`pane=${encodeURIComponent(pane)}&subagent=..%2F..%2Fp1`, 404],
      [`pane=${encodeURIComponent(pane)}&subagent=%2Fetc%2Fpasswd`, 404],
    ]
    for (const [q, status] of cases) {
      const res = await plainGet(q)
      const body = await res.text()
      expect([q, res.status]).toEqual([q, status])
      if (status === 404) {
        expect(body.length).toBeLessThanOrEqual(300)
        expect(body).not.toContain('\n')
      }
    }
    expect(await (await plainGet(`pane=${encodeURIComponent(hermes)}`)).text()).toBe('transcript not available: agent kind hermes not supported')
    expect(await (await plainGet('pane=w999%3Ap9')).text()).toBe('no such agent: this pane has no agent')
    expect(await (await plainGet(`pane=${encodeURIComponent(pane)}&subagent=..%2Fx`)).text()).toBe('transcript not available: no such subagent')
    expect((await fetch(`${stack.bridge.url}/agent-transcript?pane=${encodeURIComponent(pane)}`)).status).toBe(401)
  })

  it('the snapshot dates the agent from its transcript tail and counts its subagents', async () => {
    writeFileSync(join(projDir, 'snap1.jsonl'), [msg(7, 'snap1'), '{"type":"file-history-snapshot"}'].join('\n') + '\n')
    const sub = join(projDir, 'snap1', 'subagents')
    mkdirSync(sub, { recursive: true })
    writeFileSync(join(sub, 'agent-k1.jsonl'), '')
    writeFileSync(join(sub, 'agent-k1.meta.json'), JSON.stringify({ toolUseId: 'toolu_9' }))
    const pane = await agentPane('claude', 'herdr:claude', 'snap1')
    const plain = await agentPane('claude', 'herdr:claude', 'nofile1')
    const body = (await (await stack.bridge.request('/snapshot')).json()) as { result: { snapshot: { agents: Record<string, unknown>[] } } }
    const agents = body.result.snapshot.agents
    const a = agents.find((x) => x.pane_id === pane)!
    expect(a.last_activity_ts).toBe(Date.UTC(2025, 0, 1, 0, 0, 7))
    expect(a.subagents).toEqual({ total: 1, running: 1 })
    const b = agents.find((x) => x.pane_id === plain)!
    expect('last_activity_ts' in b).toBe(false)
    expect('subagents' in b).toBe(false)
  })
})
