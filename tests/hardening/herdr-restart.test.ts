// herdr stopped and restarted while the bridge is under load: /events clients connected, agent
// statuses changing, /snapshot (and other herdr-backed routes) polled in a loop.
import { test, expect, afterAll } from 'vitest'
import { unlinkSync } from 'node:fs'
import { startStack, type Stack } from '../harness/stack.ts'
import { openEvents, type Frame, type Frames } from '../events/ws-client.ts'
import { isStatus, newPane, setStatus, assertContiguous } from '../events/common.ts'
import { bounded, retainedHeap, MB, type Answer } from './util.ts'

let st: Stack
afterAll(async () => {
  await st?.close()
})

const CLIENTS = 5
const CYCLES = 3
/** Every request answers within this (herdr calls time out at 15 s; nothing should get near). */
const BOUND_MS = 10_000

const bridgeEvent = (type: string) => (f: Frame) => f.source === 'bridge' && f.type === type

test('herdr stopped and restarted 3× under load: bounded answers, 502 while down, never 500, events disconnect → connect → resync with no seq gap, heap bounded', async () => {
  st = await startStack()
  const ingest = st.bridge.bridge.ingest!
  await ingest.settled()
  const panes = [(await newPane(st.sim)).pane, (await newPane(st.sim)).pane]
  for (const p of panes) await setStatus(st.sim, p, 'idle')

  const url = `${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`
  const clients: Frames[] = []
  for (let i = 0; i < CLIENTS; i++) {
    const c = openEvents(url)
    clients.push(c)
    await c.next((f) => f.type === 'snapshot')
  }

  // --- load: pollers over herdr-backed routes, and a status producer -------------------------
  let running = true
  let down = false
  const answers: (Answer & { path: string; down: boolean })[] = []
  const poll = async (path: string) => {
    while (running) {
      const wasDown = down
      const a = await bounded((signal) => st.bridge.request(path, { signal }), BOUND_MS)
      answers.push({ ...a, path, down: wasDown && down })
    }
  }
  const pollers = [poll('/snapshot'), poll('/snapshot'), poll(`/agent-state?pane=${encodeURIComponent(panes[0])}`), poll(`/timeline?limit=20`)]
  const states = ['working', 'blocked', 'idle']
  const producer = (async () => {
    for (let i = 0; running; i++) {
      try {
        await setStatus(st.sim, panes[i % 2], states[i % 3])
      } catch {
        // herdr is down: the producer waits for it like any client would.
        await new Promise((r) => setTimeout(r, 20))
      }
    }
  })()

  const heap: number[] = []
  try {
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const from = clients.map((c) => c.frames.length)
      await st.sim.stopSession('default')
      for (const [i, c] of clients.entries()) await c.next(bridgeEvent('multiplexer_disconnected'), 20_000, from[i])
      down = true
      // While down, herdr-backed requests answer 502 quickly.
      const whileDown = await bounded((signal) => st.bridge.request('/snapshot', { signal }), BOUND_MS)
      expect([whileDown.status, whileDown.body]).toEqual([502, expect.stringMatching(/^herdr: unreachable: /)])
      // A client that connects while herdr is down cannot get a snapshot: closed with 1011 (spec 3).
      const late = openEvents(url)
      expect(await late.closed).toEqual({ code: 1011, reason: 'snapshot failed' })
      down = false
      await st.sim.startSession('default')
      for (const [i, c] of clients.entries()) {
        const up = await c.next(bridgeEvent('multiplexer_connected'), 20_000, from[i])
        const resync = await c.next(bridgeEvent('multiplexer_resync'), 30_000, from[i])
        expect(resync.payload).toEqual({ reason: 'multiplexer reconnected', session: 'default' })
        expect(resync.seq).toBeGreaterThan(up.seq)
      }
      // Status changes flow again to every client: a transition made after the resync arrives.
      const mark = clients.map((c) => c.frames.length)
      await setStatus(st.sim, panes[0], 'blocked', { title: `cycle-${cycle}` })
      await setStatus(st.sim, panes[0], 'working')
      for (const [i, c] of clients.entries()) await c.next(isStatus(panes[0], 'working'), 20_000, mark[i])
      heap.push(await retainedHeap())
    }
  } finally {
    running = false
    await producer
    await Promise.all(pollers)
  }

  // No request hung, none failed with a 500; every answer was 200 or herdr's 502.
  const hung = answers.filter((a) => a.status === 0)
  expect(hung.map((a) => a.path)).toEqual([])
  const bad = answers.filter((a) => a.status !== 200 && a.status !== 502)
  expect(bad.map((a) => `${a.path} → ${a.status} ${a.body}`)).toEqual([])
  // 502 bodies are one line naming herdr (the card route words it its own way: "herdr agent get …").
  for (const a of answers.filter((x) => x.status === 502)) expect(a.body).toMatch(a.path === '/snapshot' ? /^herdr: (unreachable|timeout): [^\n]+$/ : /^herdr [^\n]+$/)
  expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(CYCLES)
  expect(answers.some((a) => a.path === '/snapshot' && a.status === 502)).toBe(true)
  // A snapshot asked and answered entirely while herdr was down is a 502, never stale data.
  for (const a of answers.filter((x) => x.down && x.path === '/snapshot')) expect(a.status).toBe(502)

  // No seq gap on any socket, across three outages.
  const end = st.bridge.bridge.ctx.bus.publish('bridge', 'test_end', {})
  for (const c of clients) {
    await c.next((f) => f.seq === end.seq)
    // Verifications of the producer's last changes may land after the marker; none may be missing.
    const { last } = assertContiguous(c)
    expect(last).toBeGreaterThanOrEqual(end.seq)
    expect(c.frames.filter(bridgeEvent('multiplexer_disconnected')).length).toBe(CYCLES)
    expect(c.frames.filter(bridgeEvent('multiplexer_connected')).length).toBe(CYCLES)
    expect(c.frames.filter(bridgeEvent('multiplexer_resync')).length).toBe(CYCLES)
  }
  for (const c of clients) c.close()
  await Promise.all(clients.map((c) => c.closed))

  // Memory: what the process retains after the third outage is within a few MB of the first.
  expect(heap.length).toBe(CYCLES)
  expect(heap[CYCLES - 1] - heap[0]).toBeLessThan(24 * MB)
}, 180_000)

test('herdr crashed (SIGKILL, stale socket file left) and replaced by a fresh process: 502 fast while dead, then the new herdr is picked up with a resync and its agents stream', async () => {
  // Runs on the stack of the test above when it ran; stands alone otherwise.
  st ??= await startStack()
  const ingest = st.bridge.bridge.ingest!
  await ingest.settled()
  const c = openEvents(`${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`)
  await c.next((f) => f.type === 'snapshot')
  const before = (await newPane(st.sim)).pane
  await setStatus(st.sim, before, 'working')
  await c.next(isStatus(before, 'working'))

  await st.sim.kill()
  await c.next(bridgeEvent('multiplexer_disconnected'))
  for (const path of ['/snapshot', `/agent-state?pane=${encodeURIComponent(before)}`, '/timeline']) {
    const a = await bounded((signal) => st.bridge.request(path, { signal }), BOUND_MS)
    expect([path, a.status === 0 || a.status >= 500 ? a.status : 'ok']).toEqual([path, path === '/timeline' ? 'ok' : 502])
  }

  const from = c.frames.length
  await st.sim.restart()
  await c.next(bridgeEvent('multiplexer_connected'), 20_000, from)
  await c.next(bridgeEvent('multiplexer_resync'), 30_000, from)
  const snap = await st.bridge.request('/snapshot')
  expect(snap.status).toBe(200)
  // The fresh herdr starts over: a new pane and its status changes stream on the same socket.
  const after = (await newPane(st.sim)).pane
  await setStatus(st.sim, after, 'blocked')
  await c.next(isStatus(after, 'blocked'), 20_000, from)
  const end = st.bridge.bridge.ctx.bus.publish('bridge', 'test_end', {})
  await c.next((f) => f.seq === end.seq)
  expect(assertContiguous(c).last).toBeGreaterThanOrEqual(end.seq)
  c.close()
}, 90_000)

test('a named session that goes away long enough to be forgotten, and comes back empty: disconnected, then connected + resync for that session', async () => {
  const stack = await startStack({ sessions: ['default', 'work'] })
  try {
    const herdr = stack.bridge.bridge.ctx.herdr
    await herdr.ready()
    const ingest = stack.bridge.bridge.ingest!
    await ingest.settled()
    expect(herdr.sessions()).toEqual(['default', 'work'])
    const work = (await newPane(stack.sim, 'work')).pane
    const c = openEvents(`${stack.bridge.wsUrl}/events?token=${stack.bridge.adminToken}`)
    await c.next((f) => f.type === 'snapshot')
    await setStatus(stack.sim, work, 'working', {}, 'work')
    await c.next(isStatus(`work/${work}`, 'working'))

    await stack.sim.stopSession('work', { fresh: true })
    const down = await c.next((f) => bridgeEvent('multiplexer_disconnected')(f) && f.payload.session === 'work')
    // The next session scan no longer lists it (its socket is gone) …
    await herdr.refresh()
    expect(herdr.sessions()).toEqual(['default'])
    // … and it comes back as a fresh herdr with nothing in it.
    await stack.sim.startSession('work')
    await herdr.refresh()
    expect(herdr.sessions()).toEqual(['default', 'work'])
    const from = c.frames.indexOf(down)
    await c.next((f) => bridgeEvent('multiplexer_connected')(f) && f.payload.session === 'work', 20_000, from)
    // The client still holds the old session's panes: it must be told to re-snapshot.
    const resync = await c.next((f) => bridgeEvent('multiplexer_resync')(f) && f.payload.session === 'work', 20_000, from)
    expect(resync.payload).toEqual({ reason: 'multiplexer reconnected', session: 'work' })
    const fresh = (await newPane(stack.sim, 'work')).pane
    await setStatus(stack.sim, fresh, 'blocked', {}, 'work')
    await c.next(isStatus(`work/${fresh}`, 'blocked'), 20_000, from)
    c.close()
  } finally {
    await stack.close()
  }
}, 90_000)

test('a named session whose socket file vanishes while the bridge is subscribed: disconnected at the next scan; back with a resync when it listens again', async () => {
  const stack = await startStack({ sessions: ['default', 'work'] })
  try {
    const herdr = stack.bridge.bridge.ctx.herdr
    await herdr.ready()
    await stack.bridge.bridge.ingest!.settled()
    const c = openEvents(`${stack.bridge.wsUrl}/events?token=${stack.bridge.adminToken}`)
    await c.next((f) => f.type === 'snapshot')
    // herdr still runs, but nothing can reach it any more (a cleanup removed its socket).
    unlinkSync(stack.sim.socketPath('work'))
    await herdr.refresh()
    expect(herdr.sessions()).toEqual(['default'])
    const down = await c.next((f) => bridgeEvent('multiplexer_disconnected')(f) && f.payload.session === 'work')
    expect(down.payload).toEqual({ reason: 'session no longer listed', session: 'work' })
    const from = c.frames.indexOf(down)
    await stack.sim.stopSession('work')
    await stack.sim.startSession('work')
    await herdr.refresh()
    await c.next((f) => bridgeEvent('multiplexer_connected')(f) && f.payload.session === 'work', 20_000, from)
    await c.next((f) => bridgeEvent('multiplexer_resync')(f) && f.payload.session === 'work', 20_000, from)
    const p = (await newPane(stack.sim, 'work')).pane
    await setStatus(stack.sim, p, 'working', {}, 'work')
    await c.next(isStatus(`work/${p}`, 'working'), 20_000, from)
    expect(c.frames.slice(from).filter((f) => bridgeEvent('multiplexer_disconnected')(f) && f.payload.session === 'work').length).toBe(1)
    c.close()
  } finally {
    await stack.close()
  }
}, 90_000)
