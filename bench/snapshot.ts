/**
 * GET /snapshot against the raw `session.snapshot` round trips it wraps.
 *
 * 200 agents in 3 herdr sessions (the simulator, real PTYs), their panes spread over 40 git
 * repositories. The floor is the three `session.snapshot` calls made in parallel over the socket,
 * as the bridge makes them; both are measured interleaved in the same run with a warm branch
 * cache. Target: p50 ratio ≤ 1.5.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { startStack } from '../tests/harness/stack.ts'
import { herdrRequest } from '../core/herdr/socket.ts'

const SESSIONS = ['default', 'work', 'ops']
const AGENTS = 200
const REPOS = 40
const ROUNDS = 300
const STATES = ['working', 'idle', 'blocked', 'working', 'unknown']

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

export async function run(): Promise<void> {
  const t0 = performance.now()
  const stack = await startStack({ sessions: SESSIONS })
  try {
    const { sim, bridge, home } = stack
    const repos = Array.from({ length: REPOS }, (_, i) => {
      const dir = join(home, 'src', `repo${i}`)
      mkdirSync(dir, { recursive: true })
      const git = (...a: string[]) => execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...a], { cwd: dir, stdio: 'pipe' })
      git('init', '-q', '-b', i % 4 === 0 ? 'main' : `feature/${i}`)
      git('commit', '-q', '--allow-empty', '-m', 'one')
      return dir
    })
    // One workspace per repository, sessions taking repositories in turn; the rest are tabs.
    const workspaces: { session: string; id: string; cwd: string }[] = []
    const panes: { session: string; id: string }[] = []
    for (let i = 0; i < REPOS; i++) {
      const session = SESSIONS[i % SESSIONS.length]
      const r = await sim.request('workspace.create', { cwd: repos[i] }, session)
      workspaces.push({ session, id: r.workspace.workspace_id, cwd: repos[i] })
      panes.push({ session, id: r.root_pane.pane_id })
    }
    for (let i = 0; panes.length < AGENTS; i++) {
      const ws = workspaces[i % workspaces.length]
      const r = await sim.request('tab.create', { workspace_id: ws.id, cwd: ws.cwd }, ws.session)
      panes.push({ session: ws.session, id: r.root_pane.pane_id })
    }
    for (const [i, p] of panes.entries())
      await sim.request('sim.set_status', { pane_id: p.id, state: STATES[i % STATES.length], agent: i % 2 ? 'codex' : 'pi', seen: i % 3 !== 0 }, p.session)
    const setupS = (performance.now() - t0) / 1000

    const raw = () => Promise.all(SESSIONS.map((s) => herdrRequest(sim.socketPath(s), 'session.snapshot', {}, { session: s })))
    const http = async () => {
      const res = await bridge.request('/snapshot')
      if (res.status !== 200) throw new Error(`/snapshot answered ${res.status}: ${await res.text()}`)
      return res.json()
    }
    const first = (await http()) as any
    const n = first.result.snapshot.agents.length
    if (n !== AGENTS) throw new Error(`expected ${AGENTS} agents in the snapshot, got ${n}`)
    for (let i = 0; i < 20; i++) await Promise.all([raw(), http()])

    const rawMs: number[] = []
    const httpMs: number[] = []
    const bytes = JSON.stringify(first).length
    for (let i = 0; i < ROUNDS; i++) {
      let t = performance.now()
      await raw()
      rawMs.push(performance.now() - t)
      t = performance.now()
      await http()
      httpMs.push(performance.now() - t)
    }
    const f = (x: number) => x.toFixed(2).padStart(7)
    console.log(`bench/snapshot: ${AGENTS} agents, ${SESSIONS.length} sessions, ${REPOS} repos, ${ROUNDS} rounds, ${(bytes / 1024).toFixed(0)} KiB body (setup ${setupS.toFixed(1)} s)`)
    console.log(`  raw session.snapshot ×${SESSIONS.length} (floor)  p50 ${f(pct(rawMs, 50))} ms  p99 ${f(pct(rawMs, 99))} ms`)
    console.log(`  GET /snapshot                   p50 ${f(pct(httpMs, 50))} ms  p99 ${f(pct(httpMs, 99))} ms`)
    console.log(`  ratio /snapshot ÷ floor         p50 ${(pct(httpMs, 50) / pct(rawMs, 50)).toFixed(2)}×   p99 ${(pct(httpMs, 99) / pct(rawMs, 99)).toFixed(2)}×   (target p50 ≤ 1.5×)`)
  } finally {
    await stack.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run()
