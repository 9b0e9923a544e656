import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { assignRecency, attentionRank, mergeSnapshots, sortAgents, strictTypes } from '../../plugins/snapshot/model.ts'

type A = { pane_id: string; agent_status?: string; last_activity_ts?: number; state_change_seq?: number; recency_rank: number; attention_rank: number }
const agent = (pane_id: string, extra: Partial<A> = {}): A => ({ pane_id, recency_rank: -1, attention_rank: -1, ...extra })

describe('attention_rank', () => {
  it('orders blocked, done, working, idle, unknown; anything else ranks 4', () => {
    expect(['blocked', 'done', 'working', 'idle', 'unknown'].map(attentionRank)).toEqual([0, 1, 2, 3, 4])
    for (const s of [undefined, null, '', 'Blocked', 'toString', 'constructor', 7]) expect(attentionRank(s)).toBe(4)
  })
})

describe('recency_rank', () => {
  it('puts dated agents first (newest first), then seq-only (highest first), then bare by pane_id', () => {
    const agents = [
      agent('w1:p9'),
      agent('w1:p1', { state_change_seq: 3 }),
      agent('w1:p2', { last_activity_ts: 1000 }),
      agent('w1:p3', { state_change_seq: 8 }),
      agent('w1:p4', { last_activity_ts: 5000 }),
      agent('w1:p0'),
      agent('w1:p5', { last_activity_ts: 1000 }),
      agent('w1:p6', { state_change_seq: 3 }),
    ]
    assignRecency(agents)
    const byRank = [...agents].sort((a, b) => a.recency_rank - b.recency_rank).map((a) => a.pane_id)
    // Ties inside a tier (ts 1000, seq 3) fall to pane_id.
    expect(byRank).toEqual(['w1:p4', 'w1:p2', 'w1:p5', 'w1:p3', 'w1:p1', 'w1:p6', 'w1:p0', 'w1:p9'])
  })

  it('gives distinct ranks 0..N-1 whatever the input', () => {
    const arb = fc.array(
      fc.record({
        pane_id: fc.string({ maxLength: 4 }),
        last_activity_ts: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
        state_change_seq: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      }),
      { maxLength: 40 },
    )
    fc.assert(
      fc.property(arb, (raw) => {
        const agents = raw.map((r) => ({ ...r, recency_rank: -1 }))
        assignRecency(agents)
        expect(agents.map((a) => a.recency_rank).sort((a, b) => a - b)).toEqual(agents.map((_, i) => i))
        // An undated agent never ranks above a dated one.
        const dated = agents.filter((a) => a.last_activity_ts !== undefined).map((a) => a.recency_rank)
        const undated = agents.filter((a) => a.last_activity_ts === undefined).map((a) => a.recency_rank)
        if (dated.length && undated.length) expect(Math.max(...dated)).toBeLessThan(Math.min(...undated))
      }),
    )
  })

  it('sorts by (attention_rank, recency_rank)', () => {
    const agents = [
      agent('a', { agent_status: 'idle', state_change_seq: 9 }),
      agent('b', { agent_status: 'blocked', state_change_seq: 1 }),
      agent('c', { agent_status: 'working', last_activity_ts: 10 }),
      agent('d', { agent_status: 'blocked', last_activity_ts: 5 }),
      agent('e', { agent_status: 'weird' }),
      agent('f', { agent_status: 'done' }),
    ]
    for (const a of agents) a.attention_rank = attentionRank(a.agent_status)
    assignRecency(agents)
    expect(sortAgents(agents).map((a) => a.pane_id)).toEqual(['d', 'b', 'f', 'c', 'a', 'e'])
  })
})

describe('merged snapshot', () => {
  it('concatenates arrays with qualified ids and a session label, scalars from the first session', () => {
    const snap = (ws: string) => ({
      version: '0.8.0',
      protocol: 20,
      focused_pane_id: `${ws}:p1`,
      workspaces: [{ workspace_id: ws, active_tab_id: `${ws}:t1`, number: 1, focused: true }],
      tabs: [{ tab_id: `${ws}:t1`, workspace_id: ws }],
      panes: [{ pane_id: `${ws}:p1`, tab_id: `${ws}:t1`, workspace_id: ws }],
      layouts: [{ tab_id: `${ws}:t1`, workspace_id: ws, focused_pane_id: `${ws}:p1`, panes: [{ pane_id: `${ws}:p1` }] }],
      agents: [{ pane_id: `${ws}:p1`, workspace_id: ws, tab_id: `${ws}:t1` }],
    })
    const m = mergeSnapshots([
      { session: 'default', snapshot: snap('w1') },
      { session: 'work', snapshot: { ...snap('w1'), focused_pane_id: 'w1:p9' } },
    ])
    expect(m.sessions).toEqual(['default', 'work'])
    expect(m.focused_pane_id).toBe('w1:p1')
    expect(m.protocol).toBe(20)
    expect(m.panes).toEqual([
      { pane_id: 'w1:p1', tab_id: 'w1:t1', workspace_id: 'w1', session: 'default' },
      { pane_id: 'work/w1:p1', tab_id: 'work/w1:t1', workspace_id: 'work/w1', session: 'work' },
    ])
    expect(m.layouts[1]).toEqual({ tab_id: 'work/w1:t1', workspace_id: 'work/w1', focused_pane_id: 'work/w1:p1', panes: [{ pane_id: 'work/w1:p1' }], session: 'work' })
    expect((m.workspaces as Record<string, unknown>[]).map((w) => [w.workspace_id, w.active_tab_id, w.session])).toEqual([
      ['w1', 'w1:t1', 'default'],
      ['work/w1', 'work/w1:t1', 'work'],
    ])
    expect((m.agents as Record<string, unknown>[]).map((a) => a.pane_id)).toEqual(['w1:p1', 'work/w1:p1'])
  })

  it('always has the five arrays, even from an empty session', () => {
    const m = mergeSnapshots([{ session: 'default', snapshot: {} }])
    expect(m).toEqual({ agents: [], panes: [], tabs: [], workspaces: [], layouts: [], sessions: ['default'] })
  })

  it('coerces the fields a typed client reads to their JSON types', () => {
    expect(
      strictTypes({
        pane_id: 'w1:p1',
        agent: 7,
        cwd: { bad: 1 },
        state_change_seq: '12',
        number: 2.7,
        pane_count: 'x',
        focused: 'true',
        agent_session: 'id',
        worktree: null,
        extra: [1],
      }),
    ).toEqual({ pane_id: 'w1:p1', agent: '7', state_change_seq: 12, number: 2, focused: true, worktree: null, extra: [1] })
  })
})
