// WS /events against the real bridge and the herdr simulator: ordering, de-duplication, lag,
// heartbeats, inbound frames, revocation, panes that vanish without a close event.
import { describe, test, expect, beforeAll, afterAll } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import { openEvents, openStalled, type Frames } from './ws-client.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'
import { withOptions, isStatus, statusesOf, newPane, setStatus, assertContiguous } from './common.ts'

let st: Stack
const url = (token = st.bridge.adminToken) => `${st.bridge.wsUrl}/events?token=${token}`

beforeAll(async () => {
  st = await startStack({ bridge: { user: withOptions({ events: { heartbeatMs: 150, maxBufferedBytes: 64 * 1024, maxPending: 200 } }) } })
  await st.bridge.bridge.ingest!.settled()
})
afterAll(async () => {
  await st?.close()
})

describe('WS /events', () => {
  test('snapshot first, then every delta with seq baseline+1, +2, … while events are produced during the connects', async () => {
    const { pane } = await newPane(st.sim)
    const bus = st.bridge.bridge.ctx.bus
    let producing = true
    const ticker = setInterval(() => bus.publish('bridge', 'test_tick', { n: bus.seq }), 2)
    const producer = (async () => {
      const states = ['working', 'idle', 'blocked']
      for (let i = 0; producing; i++) await setStatus(st.sim, pane, states[i % 3])
    })()
    const clients: Frames[] = []
    try {
      for (let i = 0; i < 6; i++) {
        const c = openEvents(url())
        clients.push(c)
        await c.next((f) => f.type === 'snapshot')
      }
      // Let real status deltas reach the last client too.
      const last = clients[clients.length - 1]
      await last.next(isStatus(pane), 20_000, 1)
    } finally {
      producing = false
      clearInterval(ticker)
      await producer
    }
    const end = bus.publish('bridge', 'test_end', {})
    for (const c of clients) {
      await c.next((f) => f.seq === end.seq)
      const snap = c.frames[0]
      expect(snap).toMatchObject({ type: 'snapshot', source: 'bridge' })
      expect(typeof snap.ts).toBe('number')
      expect(Array.isArray(snap.snapshot.result.snapshot.agents)).toBe(true)
      const { baseline, last } = assertContiguous(c)
      // A status change still in flight from the producer may land after the marker.
      expect(last).toBeGreaterThanOrEqual(end.seq)
      expect(last - baseline).toBeGreaterThan(0)
    }
    // Every socket saw the same event under the same seq.
    const bySeq = new Map<number, string>()
    for (const c of clients)
      for (const f of c.frames.slice(1)) {
        if (f.type === 'heartbeat') continue
        const key = `${f.source}/${f.type}/${JSON.stringify(f.payload)}`
        expect(bySeq.get(f.seq) ?? key).toBe(key)
        bySeq.set(f.seq, key)
      }
    // Heartbeats are plain JSON text frames without seq.
    const hb = await clients[0].next((f) => f.type === 'heartbeat')
    expect(Object.keys(hb).sort()).toEqual(['ts', 'type'])
    expect(typeof hb.ts).toBe('number')
    // The multiplexer payload carries the session label and never output churn.
    expect(clients[0].frames.some((f) => f.type === 'pane_output_changed')).toBe(false)
    expect(clients[0].frames.find(isStatus(pane))!.payload).toEqual({
      pane_id: pane,
      workspace_id: expect.any(String),
      agent: 'sim-agent',
      agent_status: expect.any(String),
      session: 'default',
    })
    // Closed before the next test counts the bus's subscribers: a late unsubscribe would cancel
    // out the next socket's subscription in that count (seen on Node 22).
    for (const c of clients) c.close()
    await Promise.all(clients.map((c) => c.closed))
  })

  test('one delta per real transition, however many ways herdr reports it', async () => {
    const { pane } = await newPane(st.sim)
    const c = openEvents(url())
    await c.next((f) => f.type === 'snapshot')
    await setStatus(st.sim, pane, 'idle')
    await c.next(isStatus(pane, 'idle'))
    const from = c.frames.length
    // Each step: the status (dotted per-pane event + hub), a presentation change (another dotted
    // event, same status) and a rename (pane_updated carrying the status).
    let n = 0
    for (const state of ['working', 'blocked', 'working']) {
      await setStatus(st.sim, pane, state)
      await setStatus(st.sim, pane, state, { title: `step ${++n}` })
      await st.sim.request('agent.rename', { target: pane, name: `dedupe-${n}` })
      await setStatus(st.sim, pane, state, { title: `again ${n}` })
      await c.next(() => statusesOf(c.frames, pane, from).length >= n, 20_000, from)
    }
    // A sentinel transition: everything reported before it has been delivered by then.
    await setStatus(st.sim, pane, 'blocked')
    await c.next(() => statusesOf(c.frames, pane, from).length >= 4, 20_000, from)
    expect(statusesOf(c.frames, pane, from)).toEqual(['working', 'blocked', 'working', 'blocked'])
    // The renames still reach clients as herdr's own pane_updated events.
    expect(c.frames.some((f) => f.source === 'multiplexer' && f.type === 'pane_updated' && f.payload.pane.pane_id === pane)).toBe(true)
    c.close()
    await c.closed
  })

  test('a client that stops reading is closed with 4000 while a fast one keeps every event', async () => {
    const bus = st.bridge.bridge.ctx.bus
    const fast = openEvents(url())
    await fast.next((f) => f.type === 'snapshot')
    const before = bus.subscriberCount
    const slow = await openStalled(url())
    // The stalled socket is subscribed once the bus counts it.
    await until(
      () => bus.subscriberCount !== before,
      () => `the stalled socket to subscribe; the bus counts ${bus.subscriberCount} subscribers, ${before} before it`,
    )
    expect(bus.subscriberCount).toBe(before + 1)
    // Paced batches: the fast client drains each one; the stalled one piles up until dropped.
    const big = 'x'.repeat(16 * 1024)
    // The ingester may publish its own events meanwhile: compare against the seqs the flood got.
    const floodSeqs: number[] = []
    let published = 0
    while (bus.subscriberCount > before && published < 4000) {
      for (let i = 0; i < 50; i++) floodSeqs.push(bus.publish('bridge', 'test_flood', { i: published++, big }).seq)
      const lastSeq = bus.seq
      await fast.next((f) => f.seq === lastSeq, 30_000, fast.frames.length > 60 ? fast.frames.length - 60 : 0)
    }
    expect(bus.subscriberCount).toBe(before)
    const flood = fast.frames.filter((f) => f.type === 'test_flood')
    expect(flood.length).toBe(published)
    expect(flood.map((f) => f.seq)).toEqual(floodSeqs)
    assertContiguous(fast)
    const end = await slow.drain()
    expect(end.code).toBe(4000)
    expect(end.reason).toBe('resync: subscriber lagged')
    // The fast client is still connected and still gets events.
    const after = bus.publish('bridge', 'test_after', {})
    await fast.next((f) => f.seq === after.seq)
    fast.close()
  })

  test('an inbound frame ends the stream cleanly', async () => {
    const c = openEvents(url())
    await c.next((f) => f.type === 'snapshot')
    c.ws.send('hello')
    expect((await c.closed).code).toBe(1000)
  })

  test('revoking a device closes its socket', async () => {
    const dev = await st.bridge.pair('events-phone')
    const c = openEvents(url(dev.bearer))
    await c.next((f) => f.type === 'snapshot')
    const res = await st.bridge.request('/admin/devices/revoke', { method: 'POST', json: { id: dev.id } })
    expect(res.status).toBe(200)
    expect((await c.closed).code).toBe(1008)
  })

  test('panes that vanish without a pane event (tab closed) are reported closed', async () => {
    const { workspace } = await newPane(st.sim)
    const t = await st.sim.request('tab.create', { workspace_id: workspace })
    const pane = t.root_pane.pane_id
    const c = openEvents(url())
    await c.next((f) => f.type === 'snapshot')
    await setStatus(st.sim, pane, 'working')
    await c.next(isStatus(pane, 'working'))
    await st.sim.request('tab.close', { tab_id: t.tab.tab_id })
    const closed = await c.next((f) => f.source === 'multiplexer' && f.type === 'pane_closed' && f.payload.pane_id === pane)
    expect(closed.payload).toEqual({ type: 'pane_closed', pane_id: pane, workspace_id: workspace, inferred: true, session: 'default' })
    await c.next((f) => f.source === 'multiplexer' && f.type === 'tab_closed' && f.payload.tab_id === t.tab.tab_id)
    expect(c.frames.filter((f) => f.type === 'pane_closed' && f.payload.pane_id === pane).length).toBe(1)
    const tl = (await (await st.bridge.request(`/timeline?pane=${encodeURIComponent(pane)}`)).json()) as GetResponses['/timeline']
    expect(tl.entries[0]).toMatchObject({ pane, from: 'working', to: 'gone' })
    c.close()
  })
})
