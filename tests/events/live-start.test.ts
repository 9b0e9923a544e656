// herdr 0.9 starts a new lifecycle subscription with live events (no replay of its ring): nothing
// that happens right after the bridge (re)connects may be taken for history and dropped. Runs
// against the simulator in 0.9 mode whatever HERDR_SIM_MODE the run uses; against 0.8 (which
// replays) the same pane is covered by the resync the bridge sends after its replay window.
import { test, expect, afterAll } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import { openEvents, type Frame } from './ws-client.ts'

let st: Stack
afterAll(async () => {
  await st?.close()
})

const bridgeEvent = (type: string) => (f: Frame) => f.source === 'bridge' && f.type === type
const created = (pane: string) => (f: Frame) => f.source === 'multiplexer' && f.type === 'pane_created' && f.payload.pane?.pane_id === pane

test('herdr 0.9: a pane created within the first second after a connect or a reconnect is announced on /events', async () => {
  st = await startStack({ simEnv: { HERDR_SIM_MODE: '0.9' } })
  const ingest = st.bridge.bridge.ingest!
  const c = openEvents(`${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`)
  await c.next((f) => f.type === 'snapshot')

  // First connect: the bridge is connected, the pane comes at once.
  await ingest.settled()
  const first = await st.sim.request('workspace.create', {})
  const firstPane = first.root_pane.pane_id
  await c.next(created(firstPane), 10_000)

  // Reconnect: herdr goes and comes back; a pane created the moment the bridge is connected again.
  await st.sim.stopSession('default')
  const down = await c.next(bridgeEvent('multiplexer_disconnected'))
  const from = c.frames.indexOf(down)
  await st.sim.startSession('default')
  await c.next(bridgeEvent('multiplexer_connected'), 20_000, from)
  const t0 = Date.now()
  const again = await st.sim.request('workspace.create', {})
  expect(Date.now() - t0).toBeLessThan(1000)
  const pane = again.root_pane.pane_id
  const frame = await c.next(created(pane), 10_000, from)
  expect(frame.payload).toMatchObject({ type: 'pane_created', pane: { pane_id: pane, workspace_id: again.workspace.workspace_id }, session: 'default' })
  // Clients still re-snapshot past the outage; nothing was counted as skipped history.
  const resync = await c.next(bridgeEvent('multiplexer_resync'), 10_000, from)
  expect(resync.payload).toEqual({ reason: 'multiplexer reconnected', session: 'default' })
  expect(c.frames.filter(bridgeEvent('multiplexer_resync')).length).toBe(1)
  c.close()
})
