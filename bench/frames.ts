/**
 * bench/frames: what one agent status change costs with 100 `/events` clients, this tree against
 * the code before the client-events filter (BENCH_BASE_COMMIT, default 18c3cb8) in the same run.
 *
 * Each bridge runs in its own process (bench/_bridge-child.ts, the shipped plugin list: push and
 * every notifier channel running, none configured) on one herdr simulator; 20 panes alternate
 * working ↔ blocked, 10 changes each; every change is awaited on a client before the next.
 *   frames per change  frames a client received / changes (target 1, 2 when a push went out:
 *                      blocked alerts, so the working/blocked mix targets 1.5)
 *   CPU per change     the bridge's user+system CPU over the run / changes (target ≤ 0.5× base)
 * Rounds alternate base and this tree (2 each; the medians are compared).
 */
import { mkdtempSync, rmSync, symlinkSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { WebSocket } from 'undici'
import { startSim, type Sim } from '../tests/harness/sim.ts'
import { spawnBridge, type BridgeProc } from './_bridge.ts'

/** The fields of an /events frame this benchmark reads (status changes and push_sent). */
type EventFrame = { type: string; payload: { pane_id?: string; agent_status?: string; agent?: string } }

const CLIENTS = 100
const PANES = 20
const PER_PANE = 10
const ROUNDS = 2
const root = join(import.meta.dirname, '..')

interface Round {
  frames: number
  bytes: number
  changes: number
  pushes: number
  cpuMs: number
}

function client(url: string) {
  const ws = new WebSocket(url)
  let snapshot = false
  let frames = 0
  let bytes = 0
  const types = new Map<string, number>()
  const listeners = new Set<(f: EventFrame) => void>()
  ws.addEventListener('message', (e) => {
    const data = String(e.data)
    if (!snapshot) {
      snapshot = data.startsWith('{"type":"snapshot"')
      return
    }
    if (data.startsWith('{"type":"heartbeat"')) return
    frames++
    bytes += data.length
    if (listeners.size) {
      const f = JSON.parse(data) as EventFrame
      types.set(f.type, (types.get(f.type) ?? 0) + 1)
      for (const l of listeners) l(f)
    }
  })
  return {
    ws,
    types,
    listeners,
    counts: () => ({ frames, bytes }),
    ready: () =>
      new Promise<void>((r) => {
        const i = setInterval(() => snapshot && (clearInterval(i), r()), 5)
      }),
  }
}

async function round(sim: Sim, bridge: BridgeProc, panes: string[]): Promise<Round & { types: Map<string, number> }> {
  const url = `${bridge.wsUrl}/events?token=${bridge.token}`
  const clients = Array.from({ length: CLIENTS }, () => client(url))
  try {
    await Promise.all(clients.map((c) => c.ready()))
    // Let the bridge's watchers settle before counting starts.
    await new Promise((r) => setTimeout(r, 1500))
    const watcher = clients[0]
    const waiters = new Map<string, () => void>()
    watcher.listeners.add((f) => {
      if (f.type !== 'pane_agent_status_changed' && f.type !== 'push_sent') return
      const k = f.type === 'push_sent' ? `push|${f.payload.agent}` : `${f.payload.pane_id}|${f.payload.agent_status}`
      waiters.get(k)?.()
      waiters.delete(k)
    })
    const base = clients.map((c) => c.counts())
    watcher.types.clear()
    const cpu0 = bridge.cpuMs()
    let changes = 0
    let pushes = 0
    await Promise.all(
      panes.map(async (pane) => {
        for (let i = 0; i < PER_PANE; i++) {
          const state = i % 2 ? 'working' : 'blocked'
          const seen = [new Promise<void>((r) => waiters.set(`${pane}|${state}`, r))]
          // A blocked change sends an alert; its push_sent closes the change.
          if (state === 'blocked') seen.push(new Promise<void>((r) => waiters.set(`push|${pane}`, r)))
          await sim.request('sim.set_status', { pane_id: pane, state, agent: 'bench-agent' })
          await Promise.all(seen)
          changes++
          if (state === 'blocked') pushes++
        }
      }),
    )
    // Late frames of the last changes (a dismissal's plumbing) land within this.
    await new Promise((r) => setTimeout(r, 500))
    const cpuMs = bridge.cpuMs() - cpu0
    let frames = 0
    let bytes = 0
    clients.forEach((c, i) => {
      const n = c.counts()
      frames += n.frames - base[i].frames
      bytes += n.bytes - base[i].bytes
    })
    return { frames: frames / CLIENTS, bytes: bytes / CLIENTS, changes, pushes, cpuMs, types: new Map(watcher.types) }
  } finally {
    for (const c of clients) c.ws.close()
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** A worktree of the base commit beside this tree's node_modules; removed afterwards. */
function baseTree(commit: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-base-'))
  rmSync(dir, { recursive: true, force: true })
  execFileSync('git', ['worktree', 'add', '--detach', '--force', dir, commit], { cwd: root, stdio: 'ignore' })
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  return {
    dir,
    remove() {
      execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' })
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true })
    },
  }
}

export async function run(): Promise<void> {
  const commit = process.env.BENCH_BASE_COMMIT || '18c3cb8'
  const base = baseTree(commit)
  const home = mkdtempSync(join(tmpdir(), 'bench-frames-'))
  const sim = await startSim({ home, testMode: true, validate: false })
  const spawnBase: typeof spawnBridge = (await import(join(base.dir, 'bench/_bridge.ts'))).spawnBridge
  try {
    const panes: string[] = []
    for (let i = 0; i < PANES; i++) panes.push((await sim.request('workspace.create', {})).root_pane.pane_id)
    const results: Record<'base' | 'now', (Round & { types: Map<string, number> })[]> = { base: [], now: [] }
    for (let r = 0; r < ROUNDS; r++) {
      for (const which of ['base', 'now'] as const) {
        // Every pane idle before the bridge starts: it takes that as the starting state, so the
        // previous round's last change cannot alert (working → idle is `done`) inside this one.
        for (const pane of panes) await sim.request('sim.set_status', { pane_id: pane, state: 'idle', agent: 'bench-agent' })
        const bridge = await (which === 'base' ? spawnBase : spawnBridge)(home)
        try {
          results[which].push(await round(sim, bridge, panes))
        } finally {
          await bridge.stop().catch(() => {})
        }
      }
    }
    const sum = (which: 'base' | 'now') => {
      const rs = results[which]
      return {
        frames: median(rs.map((x) => x.frames / x.changes)),
        bytes: median(rs.map((x) => x.bytes / x.changes)),
        cpu: median(rs.map((x) => x.cpuMs / x.changes)),
        pushes: rs[0].pushes,
        changes: rs[0].changes,
        types: [...rs[rs.length - 1].types].map(([t, n]) => `${t} ${n}`).join(', '),
      }
    }
    const b = sum('base')
    const n = sum('now')
    console.log(`frames: ${CLIENTS} /events clients, ${n.changes} status changes a round (${n.pushes} of them blocked, each alerting), ${ROUNDS} rounds each, base ${commit}`)
    console.log(`  base       ${b.frames.toFixed(2)} frames/change  ${b.bytes.toFixed(0)} B/change/client  CPU ${b.cpu.toFixed(2)} ms/change`)
    console.log(`             one client saw: ${b.types}`)
    console.log(`  this tree  ${n.frames.toFixed(2)} frames/change  ${n.bytes.toFixed(0)} B/change/client  CPU ${n.cpu.toFixed(2)} ms/change`)
    console.log(`             one client saw: ${n.types}`)
    const want = (n.changes + n.pushes) / n.changes
    console.log(
      `  frames per change ${n.frames.toFixed(2)} (target 1 per change, 2 with a push: ${want.toFixed(2)} for this mix): ${Math.abs(n.frames - want) < 0.01 ? 'met' : 'NOT met'}`,
    )
    console.log(`  CPU per change ${(n.cpu / b.cpu).toFixed(2)}× base (target ≤ 0.5×): ${n.cpu / b.cpu <= 0.5 ? 'met' : 'NOT met'}`)
  } finally {
    await sim.stop().catch(() => {})
    rmSync(home, { recursive: true, force: true })
    base.remove()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
