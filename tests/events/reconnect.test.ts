// herdr going away and coming back: disconnected, connected, resync, no stale replay, and
// status changes flowing again.
import { test, expect, afterAll } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import { openEvents, type Frame } from './ws-client.ts'
import { isStatus, statusesOf, newPane, setStatus } from './common.ts'

let st: Stack
afterAll(async () => {
  await st?.close()
})

const bridgeEvent = (type: string) => (f: Frame) => f.source === 'bridge' && f.type === type

test('simulator stopped → disconnected; restarted → connected, resync, and only new transitions', async () => {
  st = await startStack()
  const ingest = st.bridge.bridge.ingest!
  await ingest.settled()
  const { pane } = await newPane(st.sim)
  const c = openEvents(`${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`)
  await c.next((f) => f.type === 'snapshot')
  // History that herdr keeps in its ring and replays to the next subscriber.
  let n = 0
  for (const state of ['working', 'blocked', 'working', 'blocked']) {
    await setStatus(st.sim, pane, state)
    await st.sim.request('agent.rename', { target: pane, name: `hist-${++n}` })
    await c.next(() => statusesOf(c.frames, pane).length >= n, 20_000)
  }
  expect(statusesOf(c.frames, pane)).toEqual(['working', 'blocked', 'working', 'blocked'])

  await st.sim.stopSession('default')
  const down = await c.next(bridgeEvent('multiplexer_disconnected'))
  expect(down.payload).toEqual({ reason: expect.any(String), session: 'default' })
  const from = c.frames.indexOf(down)

  await st.sim.startSession('default')
  const up = await c.next(bridgeEvent('multiplexer_connected'), 20_000, from)
  expect(up.payload).toEqual({ socket: st.sim.socketPath('default'), session: 'default' })
  const resync = await c.next(bridgeEvent('multiplexer_resync'), 30_000, from)
  expect(resync.payload).toEqual({ reason: 'multiplexer reconnected', session: 'default' })
  expect(resync.seq).toBeGreaterThan(up.seq)

  // The replayed history announced nothing; a real change after the reconnect does.
  await setStatus(st.sim, pane, 'working')
  await c.next(isStatus(pane, 'working'), 20_000, from)
  await setStatus(st.sim, pane, 'blocked')
  await c.next(isStatus(pane, 'blocked'), 20_000, from)
  expect(statusesOf(c.frames, pane, from)).toEqual(['working', 'blocked'])
  // Exactly one disconnect and one connect for one outage.
  expect(c.frames.filter(bridgeEvent('multiplexer_disconnected')).length).toBe(1)
  expect(c.frames.filter(bridgeEvent('multiplexer_connected')).length).toBe(1)
  c.close()
})
