// WS /events carries the client's events only: a status change is one frame, plus `push_sent`
// when an alert went out. The alert pipeline's own traffic stays in the process: the channels are
// called directly, and its bus events (notification_cleared) are internal and take no seq, so the
// stream has no gaps.
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import type { BusEvent } from '../../core/bus.ts'
import pairing from '../../plugins/pairing/index.ts'
import events from '../../plugins/events/index.ts'
import snapshot from '../../plugins/snapshot/index.ts'
import push from '../../plugins/push/index.ts'
import notifyWebhook from '../../plugins/notify-webhook/index.ts'
import { startStandIn, type StandIn } from '../notify/stand-in.ts'
import { openEvents } from './ws-client.ts'
import { assertContiguous, isStatus, newPane, setStatus } from './common.ts'

let st: Stack
let hooks: StandIn
const seen: BusEvent[] = []

beforeAll(async () => {
  hooks = await startStandIn()
  st = await startStack({
    bridge: {
      env: { BRIDGE_WEBHOOK_URL: `${hooks.url}/a, ${hooks.url}/b` },
      // events reads the snapshot plugin's live model (the liveSnapshot service).
      user: { plugins: [pairing, snapshot, events, push, notifyWebhook] },
    },
  })
  st.bridge.bridge.ctx.bus.subscribe({ deliver: (e) => void seen.push(e) })
  await st.bridge.bridge.state(push)!.started
  await st.bridge.bridge.ingest!.settled()
})
afterAll(async () => {
  await st?.close()
  await hooks?.close()
})

const busSaw = (type: string, from: number) => () => seen.slice(from).find((e) => e.type === type)

describe('WS /events frames per status change', () => {
  test('working: 1 frame; blocked with a push: 2 (status, push_sent); back to working with a dismissal: 1', async () => {
    const { pane } = await newPane(st.sim)
    await setStatus(st.sim, pane, 'idle')
    await until(() => seen.find((e) => e.type === 'pane_agent_status_changed' && e.payload.pane_id === pane), 'the idle status on the bus')
    // herdr's detection event for the new agent is passed through on its own path and may reach
    // the bus after the status: the count below starts once both are in.
    await until(() => seen.find((e) => e.type === 'pane_agent_detected' && e.payload.pane_id === pane), 'the detection on the bus')
    const c = openEvents(`${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`)
    await c.next((f) => f.type === 'snapshot')
    const deltas = () => c.frames.slice(1).filter((f) => f.type !== 'heartbeat')

    await setStatus(st.sim, pane, 'working')
    await c.next(isStatus(pane, 'working'))

    const hooked = hooks.received.length
    await setStatus(st.sim, pane, 'blocked')
    await c.next((f) => f.type === 'push_sent')
    // The alert did go out, to both webhooks, without a frame of its own.
    expect(hooks.received.length - hooked).toBe(2)

    const mark = seen.length
    await setStatus(st.sim, pane, 'working')
    await c.next(isStatus(pane, 'working'), 20_000, 3)
    // The dismissal went through every channel and was recorded as cleared, all in-process.
    await until(busSaw('notification_cleared', mark), () => `notification_cleared on the bus; saw ${seen.map((e) => e.type).join(', ')}`)
    const end = st.bridge.bridge.ctx.bus.publish('bridge', 'test_end', {})
    await c.next((f) => f.seq === end.seq)

    expect(deltas().map((f) => `${f.source}/${f.type}${f.payload?.agent_status ? `:${f.payload.agent_status}` : ''}`)).toEqual([
      'multiplexer/pane_agent_status_changed:working',
      'multiplexer/pane_agent_status_changed:blocked',
      'bridge/push_sent',
      'multiplexer/pane_agent_status_changed:working',
      'bridge/test_end',
    ])
    expect(deltas()[2].payload).toMatchObject({ agent: pane, status: 'blocked', sent: 2, total: 2 })
    // Gap-free although internal events were published between the client's ones.
    assertContiguous(c)
    expect(seen.some((e) => e.internal && e.type === 'notification_cleared')).toBe(true)
    c.close()
  })

  test('internal events take no seq: the next public event is the last public one + 1', () => {
    const bus = st.bridge.bridge.ctx.bus
    const before = bus.seq
    const inner = bus.publish('bridge', 'test_internal', {}, { internal: true })
    expect(inner.seq).toBe(before)
    expect(inner.internal).toBe(true)
    expect(bus.publish('bridge', 'test_public', {}).seq).toBe(before + 1)
  })
})
