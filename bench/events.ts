/**
 * bench/events: 100 WebSocket subscribers on /events, 2,000 agent status transitions driven
 * through the herdr simulator (20 panes × 100, in parallel).
 *
 * Reports, per transition, delivery latency to every subscriber:
 *   end-to-end  simulator request sent → frame received by a subscriber (includes herdr's
 *               100 ms subscription tick and the bridge's pane.get check)
 *   fan-out     bus publish → frame received (the bridge's own cost)
 *   floor       simulator request sent → the dotted status event on a raw per-pane herdr
 *               subscription held by a separate process that does nothing else
 *               (bench/_events-floor.ts): what herdr alone costs
 * and the bridge's RSS before/after. The bridge runs in its own process (bench/_bridge-child.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import readline from 'node:readline'
import { WebSocket } from 'undici'
import { startSim } from '../tests/harness/sim.ts'
import { spawnBridge } from './_bridge.ts'

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

/** The fields of a `pane_agent_status_changed` frame this benchmark reads. */
type StatusFrame = { seq: number; ts: number; payload: { pane_id: string; agent_status: string } }

/** A lean subscriber: records receipt time of status frames by seq, parses only those. */
function subscriber(url: string) {
  const ws = new WebSocket(url)
  const got = new Map<number, { t: number; now: number; ts: number }>()
  let snapshot = false
  let maxSeq = 0
  const listeners = new Set<(f: StatusFrame) => void>()
  ws.addEventListener('message', (e) => {
    const t = performance.now()
    const now = Date.now()
    const data = String(e.data)
    if (!snapshot) {
      snapshot = data.startsWith('{"type":"snapshot"')
      return
    }
    if (!data.includes('pane_agent_status_changed')) return
    const f = JSON.parse(data) as StatusFrame
    got.set(f.seq, { t, now, ts: f.ts })
    maxSeq = Math.max(maxSeq, f.seq)
    for (const l of listeners) l(f)
  })
  return {
    ws,
    got,
    listeners,
    ready: () =>
      new Promise<void>((r) => {
        const i = setInterval(() => snapshot && (clearInterval(i), r()), 5)
      }),
    until: (seq: number) =>
      new Promise<void>((r) => {
        const i = setInterval(() => maxSeq >= seq && (clearInterval(i), r()), 5)
      }),
  }
}

export async function run(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'bench-events-'))
  const sim = await startSim({ home, testMode: true, validate: false })
  const bridge = await spawnBridge(home)
  const clients: ReturnType<typeof subscriber>[] = []
  const rawSubs: { close(): void }[] = []
  try {
    const panes: string[] = []
    for (let i = 0; i < PANES; i++) {
      const r = await sim.request('workspace.create', {})
      panes.push(r.root_pane.pane_id)
      await sim.request('sim.set_status', { pane_id: r.root_pane.pane_id, state: 'idle', agent: 'bench-agent' })
    }
    const wsUrl = `${bridge.url.replace(/^http/, 'ws')}/events?token=${bridge.token}`
    for (let i = 0; i < SUBSCRIBERS; i++) clients.push(subscriber(wsUrl))
    await Promise.all(clients.map((c) => c.ready()))
    // Announcements, seen through the first subscriber: pane|status → seq.
    const waiters = new Map<string, (f: StatusFrame) => void>()
    clients[0].listeners.add((f) => {
      const k = `${f.payload.pane_id}|${f.payload.agent_status}`
      waiters.get(k)?.(f)
      waiters.delete(k)
    })
    // Let every pane's status watcher come up before measuring.
    await new Promise((r) => setTimeout(r, 1500))

    // Floor: herdr's own per-pane status subscriptions, in a process of their own.
    const floorProc = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(import.meta.dirname, '_events-floor.ts'), sim.socketPath('default'), ...panes], {
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    const floorLines = readline.createInterface({ input: floorProc.stdout! })
    const floorNext = () => new Promise<string>((r) => floorLines.once('line', r))
    if ((await floorNext()) !== 'ready') throw new Error('floor client failed to start')
    rawSubs.push({ close: () => floorProc.kill() })
    /** Per pane|status, the send times of its transitions in order (epoch ms). */
    const sentAt = new Map<string, number[]>()
    const epoch = () => performance.timeOrigin + performance.now()

    const rssBefore = (await bridge.rss()).rss
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
            waiters.set(k, (f) => {
              clearTimeout(t)
              resolve(f.seq)
            })
          })
          const t0 = performance.now()
          let q = sentAt.get(k)
          if (!q) sentAt.set(k, (q = []))
          q.push(epoch())
          await sim.request('sim.set_status', { pane_id: pane, state, agent: 'bench-agent' })
          const seq = await got
          if (seq === null) lost++
          else emitted.set(seq, t0)
        }
      }),
    )
    const elapsed = performance.now() - started
    const lastSeq = Math.max(...emitted.keys())
    await Promise.all(clients.map((c) => c.until(lastSeq)))

    const e2e: number[] = []
    const fan: number[] = []
    let deliveries = 0
    for (const c of clients)
      for (const [seq, r] of c.got) {
        const t0 = emitted.get(seq)
        if (t0 === undefined) continue
        deliveries++
        e2e.push(r.t - t0)
        // Publish time is the envelope ts (the bridge's clock, whole ms; same host clock).
        fan.push(Math.max(0, r.now - r.ts))
      }
    const rssAfter = (await bridge.rss()).rss
    const dumped = floorNext()
    floorProc.stdin!.write('dump\n')
    const received = JSON.parse(await dumped) as string[]
    const seenBy = new Map<string, number>()
    const floor: number[] = []
    for (const line of received) {
      const [k, t] = line.split(' ')
      const i = seenBy.get(k) ?? 0
      seenBy.set(k, i + 1)
      const t0 = sentAt.get(k)?.[i]
      if (t0 !== undefined) floor.push(Number(t) - t0)
    }

    console.log(`events: ${SUBSCRIBERS} subscribers, ${emitted.size} transitions (${lost} not announced within 10 s) in ${(elapsed / 1000).toFixed(1)} s, ${deliveries} deliveries`)
    console.log(`  end-to-end  p50 ${ms(pct(e2e, 50))}  p99 ${ms(pct(e2e, 99))}  max ${ms(pct(e2e, 100))}`)
    console.log(`  fan-out     p50 ${ms(pct(fan, 50))}  p99 ${ms(pct(fan, 99))}  max ${ms(pct(fan, 100))}   (target p99 < 25 ms)`)
    console.log(`  floor       p50 ${ms(pct(floor, 50))}  p99 ${ms(pct(floor, 99))}   (herdr's own per-pane subscription in a separate idle process, same transitions)`)
    console.log(`  ratio       end-to-end/floor p50 ${(pct(e2e, 50) / pct(floor, 50)).toFixed(2)}x  p99 ${(pct(e2e, 99) / pct(floor, 99)).toFixed(2)}x   (target p50 ≤ 1.1x)`)
    console.log(`  rss         before ${mb(rssBefore)}  after ${mb(rssAfter)}  (${rssAfter >= rssBefore ? '+' : ''}${mb(rssAfter - rssBefore)})`)
  } finally {
    for (const c of clients) c.ws.close()
    for (const s of rawSubs) s.close()
    await bridge.stop().catch(() => {})
    await sim.stop().catch(() => {})
    rmSync(home, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
