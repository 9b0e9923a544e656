// The live snapshot's consistency rule, over real sockets against the simulator: a /snapshot
// answered after an /events delta with seq S reflects that change, and a change whose event herdr
// lost is visible within one reconcile interval.
import { describe, test, expect, beforeAll, afterAll } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import userConfig from '../../bridge.config.ts'
import snapshotPlugin from '../../plugins/snapshot/index.ts'
import { openEvents } from '../events/ws-client.ts'
import { isStatus, newPane, setStatus } from '../events/common.ts'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { git, makeRepo } from '../herdr-client/helpers.ts'
import type { PluginEntry } from '../../core/plugin.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

type Snapshot = GetResponses['/snapshot']['result']['snapshot']

const RECONCILE_MS = 1500

let st: Stack
const url = () => `${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`
const snapshot = async () => {
  const res = await st.bridge.request('/snapshot')
  expect(res.status).toBe(200)
  return ((await res.json()) as GetResponses['/snapshot']).result.snapshot
}
const agentOf = (s: Snapshot, pane: string) => s.agents.find((a) => a.pane_id === pane)

beforeAll(async () => {
  const plugins = userConfig.plugins.map((p): PluginEntry => (p === snapshotPlugin ? [snapshotPlugin, { reconcileMs: RECONCILE_MS }] : p))
  st = await startStack({ sessions: ['default', 'work'], bridge: { user: { ...userConfig, plugins } } })
  await st.bridge.bridge.ingest!.settled()
})
afterAll(async () => {
  await st?.close()
})

describe('live snapshot', () => {
  test('a /snapshot after a delta with seq S reflects S (statuses and layout changes, both sessions)', async () => {
    const a = await newPane(st.sim)
    const b = await newPane(st.sim, 'work')
    const c = openEvents(url())
    try {
      await c.next((f) => f.type === 'snapshot')
      const qb = `work/${b.pane}`
      await snapshot()
      const states = ['working', 'blocked', 'idle', 'working', 'blocked', 'idle']
      for (let i = 0; i < states.length; i++) {
        const [sim, pane, session] = i % 2 ? [st.sim, b.pane, 'work'] : [st.sim, a.pane, 'default']
        const q = session === 'work' ? qb : pane
        const from = c.frames.length
        await setStatus(sim, pane, states[i], {}, session)
        const delta = await c.next(isStatus(q, states[i]), 20_000, from)
        const s = await snapshot()
        expect([delta.seq, agentOf(s, q)?.agent_status]).toEqual([delta.seq, states[i]])
      }
      // A change the model cannot apply in place (a new workspace) is still there after its delta.
      const from = c.frames.length
      const ws = await st.sim.request('workspace.create', {}, 'work')
      const created = `work/${ws.workspace.workspace_id}`
      await c.next((f) => f.type === 'workspace_created' && f.payload.workspace?.workspace_id === created, 20_000, from)
      expect((await snapshot()).workspaces.map((w) => w.workspace_id)).toContain(created)
      const renamed = c.frames.length
      await st.sim.request('workspace.rename', { workspace_id: ws.workspace.workspace_id, label: 'renamed-live' }, 'work')
      await c.next((f) => f.type === 'workspace_renamed' && f.payload.workspace_id === created, 20_000, renamed)
      expect((await snapshot()).workspaces.find((w) => w.workspace_id === created)?.label).toBe('renamed-live')
      // The /events snapshot frame of a new client answers from the same model.
      const d = openEvents(url())
      try {
        const frame = await d.next((f) => f.type === 'snapshot')
        expect(agentOf(frame.snapshot.result.snapshot, qb)?.agent_status).toBe('idle')
      } finally {
        d.close()
      }
    } finally {
      c.close()
    }
  })

  test('a change whose event herdr lost is visible within one reconcile interval', async () => {
    const ws = (await st.sim.request('workspace.create', {})).workspace.workspace_id as string
    const labelOf = async () => (await snapshot()).workspaces.find((w) => w.workspace_id === ws)?.label
    await expect.poll(labelOf, { timeout: 20_000 }).toBeDefined()
    // herdr loses the rename's event; a raw lifecycle subscription shows it was never published.
    const raw = await st.sim.subscribe([{ type: 'workspace.renamed' }])
    await st.sim.request('sim.drop_events', { count: 1, type: 'workspace_renamed' })
    await st.sim.request('workspace.rename', { workspace_id: ws, label: 'renamed-silently' })
    const changed = Date.now()
    await expect.poll(labelOf, { timeout: 20_000, interval: 50 }).toBe('renamed-silently')
    expect(raw.events.filter((e) => e.data?.workspace_id === ws)).toEqual([])
    raw.close()
    // One interval, plus room for the round trip on a loaded machine.
    expect(Date.now() - changed).toBeLessThan(RECONCILE_MS + 1500)
  })

  test('unchanged reads answer the same body; a checkout no herdr event announces still shows', async () => {
    const dir = makeRepo(mkdtempSync(join(tmpdir(), 'live-branch-')))
    try {
      const pane = (await st.sim.request('workspace.create', { cwd: dir })).root_pane.pane_id as string
      await setStatus(st.sim, pane, 'working')
      const branchOf = async () => agentOf(await snapshot(), pane)?.branch
      await expect.poll(branchOf, { timeout: 20_000 }).toBe('main')
      const body = async () => (await st.bridge.request('/snapshot')).text()
      const first = await body()
      expect(await body()).toBe(first)
      git(dir, 'checkout', '-q', '-b', 'topic')
      await expect.poll(branchOf, { timeout: 20_000, interval: 50 }).toBe('topic')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
