/**
 * bench/events: 100 WebSocket subscribers on /events, 2,000 agent status transitions driven
 * through the herdr simulator (20 panes × 100, in parallel).
 *
 * Reports, per transition, delivery latency to every subscriber:
 *   end-to-end  simulator request sent → frame received by a subscriber (includes herdr's
 *               100 ms subscription tick and the bridge's pane.get check)
 *   fan-out     bus publish → frame received (the bridge's own cost)
 *   floor       simulator request sent → the dotted status event on a raw per-pane herdr
 *               subscription opened by the bench itself: what herdr alone costs
 * and bridge RSS before/after (the subscribers run in the same process, so this is an upper bound).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSim } from '../tests/harness/sim.ts'
import { startBridge } from '../tests/harness/bridge.ts'
import { openEvents, type Frames } from '../tests/events/ws-client.ts'

const SUBSCRIBERS = 100
const PANES = 20
const PER_PANE = 100
const STATES = ['working', 'blocked']

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}
const ms = (x: number) => `${x.toFixed(1)} ms`
const mb = (x: number) => `${(x / 1024 / 1024).toFixed(1)} MiB`

export async function run(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'bench-events-'))
  const sim = await startSim({ home, testMode: true, validate: false })
  const bridge = await startBridge({ home })
  const clients: Frames[] = []
  const rawSubs: { close(): void }[] = []
  try {
    const ingest = bridge.bridge.ctx.services.get('herdr.ingest') as any
    await ingest.settled()
    const bus = bridge.bridge.ctx.bus

    const panes: string[] = []
    for (let i = 0; i < PANES; i++) {
      const r = await sim.request('workspace.create', {})
      panes.push(r.root_pane.pane_id)
      await sim.request('sim.set_status', { pane_id: r.root_pane.pane_id, state: 'idle', agent: 'bench-agent' })
    }

    // Bus side: publish time per seq, and waiters for "this pane reached this status".
    const published = new Map<number, number>()
    const waiters = new Map<string, (seq: number) => void>()
    const off = bus.subscribe({
      name: 'bench',
      limit: 1_000_000,
      deliver(ev) {
        if (ev.type !== 'pane_agent_status_changed') return
        published.set(ev.seq, performance.now())
        const k = `${ev.payload.pane_id}|${ev.payload.agent_status}`
        waiters.get(k)?.(ev.seq)
        waiters.delete(k)
      },
    })

    // Each pane's watcher is up once its idle is announced and settled.
    await new Promise((r) => setTimeout(r, 1500))

    for (let i = 0; i < SUBSCRIBERS; i++) clients.push(openEvents(`${bridge.wsUrl}/events?token=${bridge.adminToken}`))
    const received = clients.map(() => new Map<number, number>())
    clients.forEach((c, i) =>
      c.ws.addEventListener('message', (e: any) => {
        const t = performance.now()
        const s = /"seq":(\d+)/.exec(String(e.data).slice(0, 200))
        if (s && String(e.data).includes('pane_agent_status_changed')) received[i].set(Number(s[1]), t)
      }),
    )
    await Promise.all(clients.map((c) => c.next((f) => f.type === 'snapshot', 60_000)))

    // Floor: herdr's own per-pane status subscriptions, read raw by the bench.
    const floor: number[] = []
    const floorWait = new Map<string, number>()
    for (const p of panes) {
      const sub = await sim.subscribe([{ type: 'pane.agent_status_changed', pane_id: p }])
      rawSubs.push(sub)
      const seen = { n: 0 }
      const tick = setInterval(() => {
        for (; seen.n < sub.events.length; seen.n++) {
          const e = sub.events[seen.n]
          const k = `${e.data.pane_id}|${e.data.agent_status}`
          const t0 = floorWait.get(k)
          if (t0 !== undefined) {
            floor.push(performance.now() - t0)
            floorWait.delete(k)
          }
        }
      }, 1)
      rawSubs.push({ close: () => clearInterval(tick) })
    }

    globalThis.gc?.()
    const rssBefore = process.memoryUsage().rss
    const emitted = new Map<number, number>()
    let lost = 0
    const started = performance.now()
    await Promise.all(
      panes.map(async (pane) => {
        for (let i = 0; i < PER_PANE; i++) {
          const state = STATES[i % 2]
          const k = `${pane}|${state}`
          const got = new Promise<number | null>((resolve) => {
            const t = setTimeout(() => resolve(null), 10_000)
            waiters.set(k, (seq) => {
              clearTimeout(t)
              resolve(seq)
            })
          })
          const t0 = performance.now()
          floorWait.set(k, t0)
          await sim.request('sim.set_status', { pane_id: pane, state, agent: 'bench-agent' })
          const seq = await got
          if (seq === null) lost++
          else emitted.set(seq, t0)
        }
      }),
    )
    const elapsed = performance.now() - started
    const lastSeq = Math.max(...emitted.keys())
    await Promise.all(clients.map((c) => c.next((f) => f.seq >= lastSeq, 60_000)))
    off()

    const e2e: number[] = []
    const fan: number[] = []
    let deliveries = 0
    for (const r of received)
      for (const [seq, t] of r) {
        const t0 = emitted.get(seq)
        const tp = published.get(seq)
        if (t0 === undefined || tp === undefined) continue
        deliveries++
        e2e.push(t - t0)
        fan.push(t - tp)
      }
    globalThis.gc?.()
    const rssAfter = process.memoryUsage().rss

    console.log(`events: ${SUBSCRIBERS} subscribers, ${emitted.size} transitions (${lost} not announced within 10 s) in ${(elapsed / 1000).toFixed(1)} s, ${deliveries} deliveries`)
    console.log(`  end-to-end  p50 ${ms(pct(e2e, 50))}  p99 ${ms(pct(e2e, 99))}  max ${ms(pct(e2e, 100))}`)
    console.log(`  fan-out     p50 ${ms(pct(fan, 50))}  p99 ${ms(pct(fan, 99))}  max ${ms(pct(fan, 100))}   (target p99 < 50 ms)`)
    console.log(`  floor       p50 ${ms(pct(floor, 50))}  p99 ${ms(pct(floor, 99))}   (herdr's own per-pane subscription, same transitions)`)
    console.log(`  ratio       end-to-end/floor p50 ${(pct(e2e, 50) / pct(floor, 50)).toFixed(2)}x  p99 ${(pct(e2e, 99) / pct(floor, 99)).toFixed(2)}x`)
    console.log(`  rss         before ${mb(rssBefore)}  after ${mb(rssAfter)}  (${rssAfter >= rssBefore ? '+' : ''}${mb(rssAfter - rssBefore)})`)
  } finally {
    for (const c of clients) c.close()
    for (const s of rawSubs) s.close()
    await bridge.close().catch(() => {})
    await sim.stop().catch(() => {})
    rmSync(home, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
