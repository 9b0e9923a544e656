// Many /events clients connecting and disconnecting while events flow: those that stay see the
// snapshot and then every delta with no gap; every subscription is released afterwards.
import { test, expect, afterAll } from 'vitest'
import { WebSocket } from 'undici'
import { startStack, type Stack } from '../harness/stack.ts'
import { openEvents, openStalled, type Frames } from '../events/ws-client.ts'
import { newPane, setStatus, assertContiguous, isStatus } from '../events/common.ts'
import { until, retainedHeap, activeTimers, MB } from './util.ts'

let st: Stack
afterAll(async () => {
  await st?.close()
})

/** Clients in all; measured on 2 cores: 1,000 (bridge and clients share this process) fits well under a minute. */
const TOTAL = Number(process.env.HARDENING_WS_CLIENTS ?? 1000)
/** Clients opened at once. */
const WAVE = 250

type Kind = 'stay' | 'close-at-once' | 'close-after-snapshot' | 'abrupt'
/** Six in ten stay (600 open at the end, ~700 at once during the last wave); the rest leave in three ways. */
const PATTERN: Kind[] = ['stay', 'close-at-once', 'stay', 'close-after-snapshot', 'stay', 'abrupt', 'stay', 'close-after-snapshot', 'stay', 'stay']
const kindOf = (i: number): Kind => PATTERN[i % PATTERN.length]

test(`${TOTAL} WebSocket clients connect and disconnect on /events while events flow: stayers get snapshot + gap-free deltas, subscriptions return to baseline`, async () => {
  st = await startStack()
  await st.bridge.bridge.ingest!.settled()
  const bus = st.bridge.bridge.ctx.bus
  const baseline = bus.subscriberCount
  const heapBefore = await retainedHeap()
  const timersBefore = activeTimers()
  const { pane } = await newPane(st.sim)
  const url = `${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`

  let flowing = true
  const ticker = setInterval(() => bus.publish('bridge', 'load_tick', { n: bus.seq }), 20)
  const producer = (async () => {
    const states = ['working', 'idle', 'blocked']
    for (let i = 0; flowing; i++) await setStatus(st.sim, pane, states[i % 3])
  })()

  const stayers: Frames[] = []
  const closings: Promise<{ code: number }>[] = []
  const started = Date.now()
  try {
    for (let w = 0; w < TOTAL; w += WAVE) {
      const wave: Promise<void>[] = []
      for (let i = w; i < Math.min(TOTAL, w + WAVE); i++) {
        const kind = kindOf(i)
        if (kind === 'abrupt') {
          // Handshake, then the TCP connection vanishes without a close frame.
          wave.push(openStalled(url).then((s) => s.destroy()))
        } else if (kind === 'close-at-once') {
          const ws = new WebSocket(url)
          closings.push(new Promise((r) => ws.addEventListener('close', (e) => r({ code: e.code }))))
          wave.push(new Promise((r) => ws.addEventListener('open', () => (ws.close(1000), r()), { once: true })))
        } else {
          const c = openEvents(url)
          const snap = c.next((f) => f.type === 'snapshot', 45_000)
          if (kind === 'stay') {
            stayers.push(c)
            wave.push(snap.then(() => {}))
          } else {
            closings.push(c.closed)
            wave.push(snap.then(() => c.ws.close(1000)))
          }
        }
      }
      await Promise.all(wave)
    }
    // Real status deltas reach the last stayer too.
    const last = stayers[stayers.length - 1]
    await last.next(isStatus(pane), 20_000, 1)
  } finally {
    flowing = false
    clearInterval(ticker)
    await producer
  }
  const connectMs = Date.now() - started

  const end = bus.publish('bridge', 'test_end', {})
  for (const c of stayers) {
    await c.next((f) => f.seq === end.seq, 30_000)
    expect(c.frames[0]).toMatchObject({ type: 'snapshot', source: 'bridge' })
    const { baseline: snapSeq, last } = assertContiguous(c)
    // Late status deltas of the producer's last change may follow the marker; none may be missing.
    expect(last).toBeGreaterThanOrEqual(end.seq)
    expect(last).toBeGreaterThan(snapSeq)
  }
  // Clients that left did so with a normal close, none was dropped by the server.
  for (const code of (await Promise.all(closings)).map((x) => x.code)) expect(code).toBe(1000)

  // The abrupt ones vanished without a close frame: the server notices their TCP close a moment later.
  await until(() => bus.subscriberCount === baseline + stayers.length, `subscribers = baseline + ${stayers.length} stayers (now ${bus.subscriberCount - baseline})`)
  for (const c of stayers) c.close()
  await Promise.all(stayers.map((c) => c.closed))
  await until(() => bus.subscriberCount === baseline, `subscriber count back to ${baseline} (now ${bus.subscriberCount})`)
  // Every socket's heartbeat timer went with it.
  await until(() => activeTimers() <= timersBefore + 2, `active timers back to ~${timersBefore} (now ${activeTimers()})`)
  expect(stayers.length).toBe(Array.from({ length: TOTAL }, (_, i) => kindOf(i)).filter((k) => k === 'stay').length)
  // A fresh client still works after the storm.
  const after = openEvents(url)
  await after.next((f) => f.type === 'snapshot')
  expect(bus.subscriberCount).toBe(baseline + 1)
  after.close()
  await after.closed
  await until(() => bus.subscriberCount === baseline, 'subscriber count back to baseline after the last client')
  // Nothing per socket outlives it (both ends live in this process, so this bounds both).
  stayers.length = 0
  const grown = (await retainedHeap()) - heapBefore
  console.log(`events-load: ${TOTAL} clients connected in ${connectMs} ms; retained heap after: ${(grown / MB).toFixed(1)} MB`)
  expect(grown).toBeLessThan(48 * MB)
}, 120_000)

test('a device revoked while 200 of its /events sockets are open: all close with 1008 at once, other clients keep their gap-free stream, no subscription leaks', async () => {
  st ??= await startStack()
  await st.bridge.bridge.ingest!.settled()
  const bus = st.bridge.bridge.ctx.bus
  const baseline = bus.subscriberCount
  const device = await st.bridge.pair('load-phone')
  const mine: Frames[] = []
  for (let i = 0; i < 200; i++) mine.push(openEvents(`${st.bridge.wsUrl}/events?token=${device.bearer}`))
  const admin = openEvents(`${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`)
  await Promise.all([...mine, admin].map((c) => c.next((f) => f.type === 'snapshot')))
  expect(bus.subscriberCount).toBe(baseline + 201)

  const ticker = setInterval(() => bus.publish('bridge', 'load_tick', { n: bus.seq }), 5)
  try {
    const res = await st.bridge.request('/admin/devices/revoke', { method: 'POST', json: { id: device.id } })
    expect(res.status).toBe(200)
    for (const c of mine) expect(await c.closed).toEqual({ code: 1008, reason: 'device revoked' })
  } finally {
    clearInterval(ticker)
  }
  await until(() => bus.subscriberCount === baseline + 1, 'only the admin client subscribed')
  // The revoked bearer cannot come back.
  const again = openEvents(`${st.bridge.wsUrl}/events?token=${device.bearer}`)
  // Refused at the upgrade (401): the client sees an abnormal close and no frame.
  expect((await again.closed).code).toBe(1006)
  expect(again.frames).toEqual([])
  const end = bus.publish('bridge', 'test_end', {})
  await admin.next((f) => f.seq === end.seq)
  expect(assertContiguous(admin).last).toBeGreaterThanOrEqual(end.seq)
  admin.close()
  await admin.closed
  await until(() => bus.subscriberCount === baseline, 'subscriber count back to baseline')
}, 60_000)
