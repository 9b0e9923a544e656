import { describe, expect, it } from 'vitest'
import { qualify, qualifyId, splitId, stripIds, SessionConflictError } from '../../core/herdr/ids.ts'

describe('session-qualified ids', () => {
  it('splits a qualified id at the first slash; bare and default/ ids are the default session', () => {
    expect(splitId('work/w1:p2')).toEqual({ session: 'work', id: 'w1:p2' })
    expect(splitId('w1:p2')).toEqual({ session: 'default', id: 'w1:p2' })
    expect(splitId('default/w1:p2')).toEqual({ session: 'default', id: 'w1:p2' })
    expect(splitId('a/b/c')).toEqual({ session: 'a', id: 'b/c' })
  })

  it('qualifies only non-default sessions', () => {
    expect(qualifyId('work', 'w1')).toBe('work/w1')
    expect(qualifyId('default', 'w1')).toBe('w1')
    expect(qualifyId('work', '')).toBe('')
  })

  it('qualifies every id key at any depth and leaves other strings alone', () => {
    const snap = {
      focused_pane_id: 'w1:p1',
      focused_workspace_id: 'w1',
      workspaces: [{ workspace_id: 'w1', active_tab_id: 'w1:t1', label: 'w1', worktree: { repo_root: '/r' } }],
      layouts: [{ tab_id: 'w1:t1', focused_pane_id: 'w1:p1', panes: [{ pane_id: 'w1:p1', rect: { x: 0 } }], splits: [{ id: 'split_0_root' }] }],
      agents: [{ pane_id: 'w1:p1', name: 'w1:p1', revision: 0 }],
      moved: { previous_pane_id: 'w1:p3', workspace_ids: ['w1', 'w2'] },
    }
    const q = qualify('work', snap)
    expect(q).toEqual({
      focused_pane_id: 'work/w1:p1',
      focused_workspace_id: 'work/w1',
      workspaces: [{ workspace_id: 'work/w1', active_tab_id: 'work/w1:t1', label: 'w1', worktree: { repo_root: '/r' } }],
      layouts: [{ tab_id: 'work/w1:t1', focused_pane_id: 'work/w1:p1', panes: [{ pane_id: 'work/w1:p1', rect: { x: 0 } }], splits: [{ id: 'split_0_root' }] }],
      agents: [{ pane_id: 'work/w1:p1', name: 'w1:p1', revision: 0 }],
      moved: { previous_pane_id: 'work/w1:p3', workspace_ids: ['work/w1', 'work/w2'] },
    })
    // The input is not mutated, and the default session is returned as is.
    expect(snap.agents[0].pane_id).toBe('w1:p1')
    expect(qualify('default', snap)).toBe(snap)
  })

  it('round-trips: stripping a qualified tree gives back the session and the bare tree', () => {
    const bare = { pane_id: 'w1:p2', nested: [{ tab_id: 'w1:t1' }], cwd: '/tmp/a/b' }
    expect(stripIds(qualify('work', bare))).toEqual({ session: 'work', value: bare })
  })

  it('infers the session from qualified ids, including agent targets', () => {
    expect(stripIds({ target: 'work/w2:p1' })).toEqual({ session: 'work', value: { target: 'w2:p1' } })
    expect(stripIds({ pane_id: 'w1:p1' })).toEqual({ session: 'default', value: { pane_id: 'w1:p1' } })
    expect(stripIds({ pane_id: 'w1:p1' }, 'work')).toEqual({ session: 'work', value: { pane_id: 'w1:p1' } })
    expect(stripIds({ pane_id: 'work/w1:p1' }, 'work')).toEqual({ session: 'work', value: { pane_id: 'w1:p1' } })
    expect(stripIds({ pane_id: 'default/w1:p1' }, 'default')).toEqual({ session: 'default', value: { pane_id: 'w1:p1' } })
    // Paths are not ids even when they hold slashes.
    expect(stripIds({ cwd: '/home/u/x', path: 'a/b' })).toEqual({ session: 'default', value: { cwd: '/home/u/x', path: 'a/b' } })
  })

  it('refuses ids of two sessions, and an explicit session contradicting the ids', () => {
    expect(() => stripIds({ pane_id: 'a/w1:p1', workspace_id: 'b/w1' })).toThrow(SessionConflictError)
    expect(() => stripIds({ pane_id: 'a/w1:p1' }, 'b')).toThrow(SessionConflictError)
    expect(() => stripIds({ pane_id: 'a/w1:p1' }, 'default')).toThrow(SessionConflictError)
  })
})

describe('hostile keys', () => {
  it('keeps a __proto__ key as data instead of a prototype', () => {
    const parsed = JSON.parse('{"pane_id":"work/w1:p1","__proto__":{"polluted":true}}')
    const { value } = stripIds(parsed)
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect((value as Record<string, unknown>).polluted).toBeUndefined()
    expect(JSON.parse(JSON.stringify(value))).toEqual(JSON.parse('{"pane_id":"w1:p1","__proto__":{"polluted":true}}'))
  })
})
