import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import { simProfile } from '../harness/sim.ts'
import userConfig from '../../bridge.config.ts'
import { defineBridgePlugin } from '../../core/plugin.ts'
import { defineAgentKind } from '../../lib/agent-kinds.ts'
import { git, makeRepo, shellReady } from './helpers.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

/** The snapshot as the API document types it (the web app's generated types). */
type Snapshot = GetResponses['/snapshot']['result']['snapshot']

// A kind whose transcript dates agents: the test decides the dates through this map.
const dates = new Map<string, number>()
const datedKind = defineBridgePlugin({
  name: 'test-dated-kind',
  agentKinds: [defineAgentKind({ kind: 'dated', transcript: { lastActivity: async (a) => dates.get(a.pane_id) } })],
})

let stack: Stack
let repos: Record<string, string>

const snapshot = async () => {
  const res = await stack.bridge.request('/snapshot')
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  return ((await res.json()) as GetResponses['/snapshot']).result.snapshot
}

beforeAll(async () => {
  stack = await startStack({ sessions: ['default', 'work'], bridge: { user: { plugins: [datedKind, ...userConfig.plugins] } } })
  const root = join(stack.home, 'src')
  repos = {
    main: makeRepo(join(root, 'app')),
    feature: makeRepo(join(root, 'lib'), 'feature/x'),
    detached: makeRepo(join(root, 'det')),
    topic: makeRepo(join(root, 'topic'), 'topic'),
    plain: join(root, 'plain'),
  }
  git(repos.detached, 'checkout', '-q', '--detach')
  mkdirSync(repos.plain, { recursive: true })
  const { sim } = stack
  const ws = async (session: string, cwd: string) => (await sim.request('workspace.create', { cwd }, session)).root_pane.pane_id as string
  const status = (session: string, pane_id: string, state: string, agent: string) => sim.request('sim.set_status', { pane_id, state, agent, seen: true }, session)
  // default: w1 blocked codex in a repo; w2 working, dated, detached HEAD; w3 idle, dated newest, plain dir.
  await status('default', await ws('default', repos.main), 'blocked', 'codex')
  await status('default', await ws('default', repos.detached), 'working', 'dated')
  await status('default', await ws('default', repos.plain), 'idle', 'dated')
  dates.set('w2:p1', 2000).set('w3:p1', 5000)
  // work: w1 blocked codex three transitions in (seq 3); w2 a plain shell, no agent.
  const w = await ws('work', repos.feature)
  for (const s of ['blocked', 'working', 'blocked']) await status('work', w, s, 'codex')
  await ws('work', repos.plain)
})
afterAll(() => stack?.close())

describe('GET /snapshot', () => {
  it('merges both sessions with qualified ids and session labels', async () => {
    const s = await snapshot()
    expect(s.sessions).toEqual(['default', 'work'])
    expect(s.panes.map((p) => [p.pane_id, p.session])).toEqual([
      ['w1:p1', 'default'],
      ['w2:p1', 'default'],
      ['w3:p1', 'default'],
      ['work/w1:p1', 'work'],
      ['work/w2:p1', 'work'],
    ])
    expect(s.tabs.map((t) => [t.tab_id, t.workspace_id, t.session])).toEqual([
      ['w1:t1', 'w1', 'default'],
      ['w2:t1', 'w2', 'default'],
      ['w3:t1', 'w3', 'default'],
      ['work/w1:t1', 'work/w1', 'work'],
      ['work/w2:t1', 'work/w2', 'work'],
    ])
    expect(s.workspaces.map((w) => [w.workspace_id, w.active_tab_id, w.session])).toEqual([
      ['w1', 'w1:t1', 'default'],
      ['w2', 'w2:t1', 'default'],
      ['w3', 'w3:t1', 'default'],
      ['work/w1', 'work/w1:t1', 'work'],
      ['work/w2', 'work/w2:t1', 'work'],
    ])
    expect(s.layouts.map((l) => [l.tab_id, l.focused_pane_id, (l.panes as { pane_id: string }[]).map((p) => p.pane_id), l.session])).toEqual([
      ['w1:t1', 'w1:p1', ['w1:p1'], 'default'],
      ['w2:t1', 'w2:p1', ['w2:p1'], 'default'],
      ['w3:t1', 'w3:p1', ['w3:p1'], 'default'],
      ['work/w1:t1', 'work/w1:p1', ['work/w1:p1'], 'work'],
      ['work/w2:t1', 'work/w2:p1', ['work/w2:p1'], 'work'],
    ])
    // Scalars come from the default session.
    expect(s.focused_pane_id).toBe('w1:p1')
    expect(s.protocol).toBe(simProfile().protocol)
  })

  it('ranks dated agents first, then by seq, sorted by (attention_rank, recency_rank), with branches', async () => {
    const s = await snapshot()
    expect(
      s.agents.map((a) => ({
        pane_id: a.pane_id,
        agent_status: a.agent_status,
        attention_rank: a.attention_rank,
        recency_rank: a.recency_rank,
        state_change_seq: a.state_change_seq,
        branch: a.branch,
        session: a.session,
        last_activity_ts: a.last_activity_ts,
      })),
    ).toEqual([
      {
        pane_id: 'work/w1:p1',
        agent_status: 'blocked',
        attention_rank: 0,
        recency_rank: 2,
        state_change_seq: 3,
        branch: 'feature/x',
        session: 'work',
        last_activity_ts: undefined,
      },
      { pane_id: 'w1:p1', agent_status: 'blocked', attention_rank: 0, recency_rank: 3, state_change_seq: 1, branch: 'main', session: 'default', last_activity_ts: undefined },
      { pane_id: 'w2:p1', agent_status: 'working', attention_rank: 2, recency_rank: 1, state_change_seq: 2, branch: '', session: 'default', last_activity_ts: 2000 },
      { pane_id: 'w3:p1', agent_status: 'idle', attention_rank: 3, recency_rank: 0, state_change_seq: 3, branch: '', session: 'default', last_activity_ts: 5000 },
    ])
    // Undated agents carry no last_activity_ts key at all, and no subagents.
    expect(Object.keys(s.agents[0])).not.toContain('last_activity_ts')
    expect(Object.keys(s.agents[0])).not.toContain('subagents')
  })

  it('lists a plain shell pane in panes[] only', async () => {
    const s = await snapshot()
    expect(s.panes.find((p) => p.pane_id === 'work/w2:p1')).toMatchObject({ agent_status: 'unknown', session: 'work' })
    expect(s.agents.find((a) => a.pane_id === 'work/w2:p1')).toBeUndefined()
  })

  it('keeps the JSON types a typed client reads', async () => {
    const s = await snapshot()
    const want: Record<string, Record<string, string>> = {
      agents: {
        agent: 'string',
        agent_status: 'string',
        pane_id: 'string',
        workspace_id: 'string',
        tab_id: 'string',
        cwd: 'string',
        foreground_cwd: 'string',
        branch: 'string',
        session: 'string',
        focused: 'boolean',
        state_change_seq: 'int',
        attention_rank: 'int',
        recency_rank: 'int',
      },
      panes: { pane_id: 'string', tab_id: 'string', workspace_id: 'string', agent_status: 'string', focused: 'boolean', cwd: 'string', session: 'string', revision: 'int' },
      tabs: { tab_id: 'string', workspace_id: 'string', label: 'string', number: 'int', pane_count: 'int', focused: 'boolean', session: 'string' },
      workspaces: {
        workspace_id: 'string',
        label: 'string',
        number: 'int',
        tab_count: 'int',
        pane_count: 'int',
        active_tab_id: 'string',
        agent_status: 'string',
        focused: 'boolean',
        session: 'string',
      },
    }
    const typeOf = (v: unknown) => (Number.isInteger(v) ? 'int' : typeof v)
    for (const [list, fields] of Object.entries(want))
      for (const el of s[list] as Record<string, unknown>[])
        for (const [k, t] of Object.entries(fields)) expect([list, el.pane_id ?? el.tab_id ?? el.workspace_id, k, typeOf(el[k])]).toEqual([list, expect.anything(), k, t])
    expect(typeof s.focused_pane_id).toBe('string')
  })

  it('takes the branch from the foreground cwd over the pane cwd', async () => {
    const { sim } = stack
    await shellReady(sim, 'default', 'w3:p1')
    await sim.request('pane.send_text', { pane_id: 'w3:p1', text: `cd ${repos.topic}\r` }, 'default')
    let agent: Snapshot['agents'][number] | undefined
    await until(
      async () => {
        agent = (await snapshot()).agents.find((a) => a.pane_id === 'w3:p1')
        return agent?.branch === 'topic'
      },
      () => `w3:p1's branch to become topic after the cd; last agent: ${JSON.stringify(agent)}`,
      20_000,
      200,
    )
    expect([agent?.cwd, agent?.foreground_cwd, agent?.branch]).toEqual([repos.plain, repos.topic, 'topic'])
  })

  it('needs a credential before anything else', async () => {
    const res = await stack.bridge.request('/snapshot', { token: null })
    expect([res.status, await res.text()]).toEqual([401, 'unauthorized'])
  })

  it('skips a session that went away, and answers 502 quickly once none answers', async () => {
    await stack.sim.stopSession('work')
    const s = await snapshot()
    expect(s.sessions).toEqual(['default'])
    expect(s.panes.map((p) => p.pane_id)).toEqual(['w1:p1', 'w2:p1', 'w3:p1'])
    await stack.sim.stopSession('default')
    // Well under herdr's 15 s deadline: a dead socket must fail at once, not hang.
    const res = await stack.bridge.request('/snapshot', { signal: AbortSignal.timeout(5_000) })
    expect(res.status).toBe(502)
    expect(await res.text()).toMatch(/^herdr: unreachable: /)
  })
})
