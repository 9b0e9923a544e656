// Workspaces, tabs, panes: ids, snapshot shapes and herdr's event order per operation.
import { describe, expect, it } from 'vitest'
import { encodeWorkspaceNumber } from '../harness/herdr-sim/ids.ts'
import { simProfile, type Subscription } from '../harness/sim.ts'
import { until } from '../harness/wait.ts'
import { useSim } from './helpers.ts'

const T = 30000

const LIFECYCLE = [
  'workspace.created',
  'workspace.updated',
  'workspace.renamed',
  'workspace.closed',
  'workspace.focused',
  'tab.created',
  'tab.closed',
  'tab.renamed',
  'tab.focused',
  'pane.created',
  'pane.closed',
  'pane.updated',
  'pane.focused',
  'pane.exited',
  'pane.agent_detected',
  'layout.updated',
].map((type) => ({ type }))

/** Events of one subscription that arrived after `from`, in arrival order, as of the moment `done` held. */
function eventsAfter(sub: Subscription, from: number, done: (names: string[]) => boolean): Promise<string[]> {
  const names = () => sub.events.slice(from).map((e) => e.event as string)
  return until(
    () => {
      const n = names()
      return done(n) ? n : undefined
    },
    () => `the events to arrive; so far: ${names().join(' ')}`,
  )
}

describe('ids', () => {
  it('encodes workspace numbers in herdr base 32', () => {
    expect([1, 9, 10, 31, 32, 33].map(encodeWorkspaceNumber)).toEqual(['1', '9', 'A', 'Z', '0', '11'])
  })
})

describe('topology', () => {
  const { sim, home } = useSim()

  it(
    'starts empty and snapshots with every required key',
    async () => {
      const snap = (await sim().request('session.snapshot', {})).snapshot
      expect(snap).toMatchObject({ version: simProfile().version, protocol: simProfile().protocol, workspaces: [], tabs: [], panes: [], layouts: [], agents: [] })
      expect(snap.focused_pane_id).toBeUndefined()
    },
    T,
  )

  it(
    'workspace.create emits workspace_created → tab_created → pane_created → layout_updated, then the focus trio',
    async () => {
      const sub = await sim().subscribe(LIFECYCLE)
      const created = await sim().request('workspace.create', { cwd: home(), label: 'first' })
      expect(created.workspace).toMatchObject({
        workspace_id: 'w1',
        number: 1,
        label: 'first',
        focused: true,
        pane_count: 1,
        tab_count: 1,
        active_tab_id: 'w1:t1',
        agent_status: 'unknown',
      })
      expect(created.tab).toEqual({ tab_id: 'w1:t1', workspace_id: 'w1', number: 1, label: '1', focused: true, pane_count: 1, agent_status: 'unknown' })
      expect(created.root_pane).toMatchObject({ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', focused: true, agent_status: 'unknown', revision: 0 })
      expect(created.root_pane.terminal_id).toMatch(/^term_[0-9a-f]+$/)
      expect(created.root_pane.agent).toBeUndefined()
      const names = await eventsAfter(sub, 0, (n) => n.includes('pane_focused') && n.includes('layout_updated'))
      for (const n of ['workspace_created', 'tab_created', 'pane_created', 'layout_updated', 'workspace_focused', 'tab_focused', 'pane_focused']) {
        expect(names).toContain(n)
      }
      sub.close()
    },
    T,
  )

  it(
    'orders the events of one operation as herdr does',
    async () => {
      const sub = await sim().subscribe([{ type: 'workspace.created' }, { type: 'tab.created' }, { type: 'pane.created' }, { type: 'layout.updated' }])
      await sub.next(() => false, 600).catch(() => undefined) // let buffered history drain
      const from = sub.events.length
      const ws = await sim().request('workspace.create', {})
      const got = await eventsAfter(sub, from, (n) => n.length >= 4)
      // One event per entry per tick, entries visited in array order: the first tick yields the
      // four kinds in exactly herdr's emission order.
      expect(got.slice(0, 4)).toEqual(['workspace_created', 'tab_created', 'pane_created', 'layout_updated'])
      sub.close()
      await sim().request('workspace.close', { workspace_id: ws.workspace.workspace_id })
    },
    T,
  )

  it(
    'a fresh lifecycle subscriber: herdr 0.8 replays buffered history from sequence 0, herdr 0.9 starts with live events',
    async () => {
      const sub = await sim().subscribe([{ type: 'workspace.created' }])
      if (!simProfile().liveOnlySubscriptions) {
        const first = await sub.next()
        expect(first.data.workspace.workspace_id).toBe('w1')
      } else {
        const ws = await sim().request('workspace.create', {})
        const first = await sub.next()
        expect(first.data.workspace.workspace_id).toBe(ws.workspace.workspace_id)
        expect(sub.events.filter((e) => e.event === 'workspace_created')).toHaveLength(1)
        await sim().request('workspace.close', { workspace_id: ws.workspace.workspace_id })
      }
      sub.close()
    },
    T,
  )

  it(
    'pane and tab ids share one per-workspace counter and are never reused',
    async () => {
      const split = await sim().request('pane.split', { target_pane_id: 'w1:p1', direction: 'right' })
      expect(split.pane.pane_id).toBe('w1:p2')
      const tab = await sim().request('tab.create', { workspace_id: 'w1' })
      expect(tab.tab.tab_id).toBe('w1:t2')
      expect(tab.root_pane.pane_id).toBe('w1:p3')
      expect(tab.tab.label).toBe('2')
      // Creation without focus leaves focus alone.
      expect(tab.tab.focused).toBe(false)
      await sim().request('pane.close', { pane_id: 'w1:p2' })
      const again = await sim().request('pane.split', { target_pane_id: 'w1:p1', direction: 'down' })
      expect(again.pane.pane_id).toBe('w1:p4')
      const layout = (await sim().request('pane.layout', { pane_id: 'w1:p1' })).layout
      expect(layout.splits[0]).toMatchObject({ id: 'split_0_root', direction: 'down', ratio: 0.5 })
      expect(layout.panes.map((p: { pane_id: string }) => p.pane_id)).toEqual(['w1:p1', 'w1:p4'])
    },
    T,
  )

  it(
    'accepts legacy id spellings',
    async () => {
      expect((await sim().request('pane.get', { pane_id: 'w1-1' })).pane.pane_id).toBe('w1:p1')
      expect((await sim().request('tab.get', { tab_id: 'w1:2' })).tab.tab_id).toBe('w1:t2')
      expect((await sim().request('workspace.get', { workspace_id: '1' })).workspace.workspace_id).toBe('w1')
    },
    T,
  )

  it(
    'focus changes emit the trio and mark the tab seen; rename of a pane emits nothing',
    async () => {
      const sub = await sim().subscribe([{ type: 'workspace.focused' }, { type: 'tab.focused' }, { type: 'pane.focused' }, { type: 'tab.renamed' }])
      // Buffered history arrives before a marker made now (w1:t1 renamed to a label never used before).
      await sim().request('tab.rename', { tab_id: 'w1:t1', label: 'history-drained' })
      await sub.next((e) => e.event === 'tab_renamed' && e.data.label === 'history-drained')
      const from = sub.events.length
      await sim().request('tab.focus', { tab_id: 'w1:t2' })
      const names = await eventsAfter(sub, from, (n) => n.length >= 3)
      expect(names.slice(0, 3)).toEqual(['workspace_focused', 'tab_focused', 'pane_focused'])
      const pane = await sim().request('pane.rename', { pane_id: 'w1:p3', label: 'logs' })
      expect(pane.pane.label).toBe('logs')
      const renamed = await sim().request('tab.rename', { tab_id: 'w1:t2', label: 'build' })
      expect(renamed.tab.label).toBe('build')
      const ev = await sub.next((e) => e.event === 'tab_renamed' && e.data.tab_id === 'w1:t2')
      expect(ev.data).toEqual({ type: 'tab_renamed', tab_id: 'w1:t2', workspace_id: 'w1', label: 'build' })
      sub.close()
    },
    T,
  )

  it(
    'closing the last pane of a tab emits pane_closed only; tab.close emits tab_closed only',
    async () => {
      const sub = await sim().subscribe([{ type: 'pane.closed' }, { type: 'tab.closed' }, { type: 'workspace.closed' }])
      // Buffered history arrives before a marker made now (a throwaway workspace closed).
      const drain = await sim().request('workspace.create', { focus: false })
      await sim().request('workspace.close', { workspace_id: drain.workspace.workspace_id })
      await sub.next((e) => e.event === 'workspace_closed' && e.data.workspace_id === drain.workspace.workspace_id)
      const from = sub.events.length
      await sim().request('pane.close', { pane_id: 'w1:p3' })
      const closed = await sub.next((e) => e.event === 'pane_closed' && e.data.pane_id === 'w1:p3')
      expect(closed.data).toEqual({ type: 'pane_closed', pane_id: 'w1:p3', workspace_id: 'w1' })
      const tabs = (await sim().request('tab.list', { workspace_id: 'w1' })).tabs
      expect(tabs.map((t: { tab_id: string }) => t.tab_id)).toEqual(['w1:t1'])
      const t3 = await sim().request('tab.create', { workspace_id: 'w1' })
      await sim().request('tab.close', { tab_id: t3.tab.tab_id })
      await sub.next((e) => e.event === 'tab_closed' && e.data.tab_id === t3.tab.tab_id)
      // A marker closed after it: once the marker's event is in, anything the closes emitted is too.
      const marker = await sim().request('workspace.create', { focus: false })
      await sim().request('workspace.close', { workspace_id: marker.workspace.workspace_id })
      const isMarker = (e: { event: string; data: Record<string, unknown> }) => e.event === 'workspace_closed' && e.data.workspace_id === marker.workspace.workspace_id
      await sub.next(isMarker)
      const names = sub.events
        .slice(from)
        .filter((e) => !isMarker(e))
        .map((e) => e.event)
      expect(names.filter((n) => n === 'tab_closed')).toHaveLength(1)
      expect(names.filter((n) => n === 'pane_closed')).toHaveLength(1)
      expect(names).not.toContain('workspace_closed')
      sub.close()
    },
    T,
  )

  it(
    'workspace.close emits workspace_closed with the final snapshot',
    async () => {
      const sub = await sim().subscribe([{ type: 'workspace.closed' }, { type: 'pane.closed' }])
      const ws = await sim().request('workspace.create', { label: 'doomed' })
      await sim().request('workspace.close', { workspace_id: ws.workspace.workspace_id })
      const ev = await sub.next((e) => e.event === 'workspace_closed' && e.data.workspace_id === ws.workspace.workspace_id)
      expect(ev.data.workspace.label).toBe('doomed')
      expect(sub.events.some((e) => e.event === 'pane_closed' && e.data.workspace_id === ws.workspace.workspace_id)).toBe(false)
      sub.close()
    },
    T,
  )

  it(
    'snapshot lists panes, tabs, layouts per tab and the focused ids',
    async () => {
      const snap = (await sim().request('session.snapshot', {})).snapshot
      expect(snap.layouts).toHaveLength(snap.tabs.length)
      expect(snap.focused_workspace_id).toBe('w1')
      expect(snap.panes.every((p: { revision: number }) => typeof p.revision === 'number')).toBe(true)
      const focused = snap.panes.filter((p: { focused: boolean }) => p.focused)
      expect(focused).toHaveLength(1)
      expect(focused[0].pane_id).toBe(snap.focused_pane_id)
    },
    T,
  )
})
