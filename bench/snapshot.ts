/**
 * GET /snapshot against the raw `session.snapshot` round trips it wraps.
 *
 * 50 and then 200 agents in 3 herdr sessions (the simulator, real PTYs), their panes spread over
 * up to 40 git repositories, a mix of kinds: claude with a transcript on disk (dated from its tail), codex and
 * pi, plus plain panes without an agent. The floor is the three `session.snapshot` calls made in
 * parallel over the socket; both are measured interleaved in the same run with warm caches, by a
 * client in its own process (bench/_snapshot-client.ts) that reads /snapshot plain, with br and
 * with gzip, decoding and parsing each body as the floor's answers are parsed. Targets: p50 ≤ 0.2×, p99 ≤ 0.5× the floor at both sizes; bytes on the wire with br or gzip ≤ 0.2× the plain
 * body.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { startStack } from '../tests/harness/stack.ts'
import type { ClientPlan, ClientResult } from './_snapshot-client.ts'
import { encodeCwd } from '../plugins/kind-claude/transcript/locate.ts'
import type { GetResponses } from '../plugins/web/app/src/lib/api-types.ts'

const SESSIONS = ['default', 'work', 'ops']
const SIZES = [50, 200]
const ROUNDS = 300
const KINDS = ['claude', 'codex', 'pi']
/** Read without compression, and as a phone would ask (Node's fetch sends `gzip, deflate`). */
const ENCODINGS = ['', 'br', 'gzip']

/** Runs the timed client (bench/_snapshot-client.ts) in its own process and returns its timings. */
function timedClient(plan: ClientPlan): Promise<ClientResult> {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(import.meta.dirname, '_snapshot-client.ts'), JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as ClientResult) : reject(new Error(`the snapshot client exited with ${code}`))))
  })
}

const STATES = ['working', 'idle', 'blocked', 'working', 'unknown']

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

export async function run(): Promise<void> {
  for (const agents of SIZES) await once(agents)
}

async function once(AGENTS: number): Promise<void> {
  const REPOS = Math.min(40, AGENTS / 5)
  const PLAIN = Math.round(AGENTS * 0.15)
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
    for (let i = 0; panes.length < AGENTS + PLAIN; i++) {
      const ws = workspaces[i % workspaces.length]
      const r = await sim.request('tab.create', { workspace_id: ws.id, cwd: ws.cwd }, ws.session)
      panes.push({ session: ws.session, id: r.root_pane.pane_id })
    }
    // Every third agent is claude with a session file of 200 lines under ~/.claude/projects.
    const line = (i: number, ts: string) =>
      JSON.stringify({
        type: i % 2 ? 'user' : 'assistant',
        uuid: `u${i}`,
        timestamp: ts,
        message: { role: i % 2 ? 'user' : 'assistant', content: `line ${i} ${'lorem ipsum '.repeat(20)}` },
      })
    for (const [i, p] of panes.entries()) {
      if (i >= AGENTS) break // the rest stay plain shells
      const kind = KINDS[i % KINDS.length]
      const cwd = workspaces[i % workspaces.length]?.cwd ?? repos[0]
      if (kind === 'claude') {
        const dir = join(home, '.claude', 'projects', encodeCwd(cwd))
        mkdirSync(dir, { recursive: true })
        const sid = `bench-${i}`
        const base = Date.UTC(2025, 0, 1) + i * 60_000
        writeFileSync(join(dir, `${sid}.jsonl`), Array.from({ length: 200 }, (_, k) => line(k, new Date(base + k * 1000).toISOString())).join('\n') + '\n')
        // herdr keeps a herdr:claude report only while something other than the shell runs there.
        await sim.request('pane.send_text', { pane_id: p.id, text: 'sleep 600\r' }, p.session)
        await sim.request(
          'sim.set_status',
          { pane_id: p.id, state: STATES[i % STATES.length], agent: 'claude', source: 'herdr:claude', agent_session_id: sid, seen: i % 3 !== 0 },
          p.session,
        )
      } else await sim.request('sim.set_status', { pane_id: p.id, state: STATES[i % STATES.length], agent: kind, seen: i % 3 !== 0 }, p.session)
    }
    const setupS = (performance.now() - t0) / 1000

    const http = async () => {
      const res = await bridge.request('/snapshot')
      if (res.status !== 200) throw new Error(`/snapshot answered ${res.status}: ${await res.text()}`)
      return res.json()
    }
    await bridge.bridge.ingest!.settled()
    const first = (await http()) as GetResponses['/snapshot']
    const n = first.result.snapshot.agents.length
    if (n !== AGENTS) throw new Error(`expected ${AGENTS} agents in the snapshot, got ${n}`)
    const dated = first.result.snapshot.agents.filter((a) => a.agent === 'claude' && a.last_activity_ts).length
    if (dated === 0) throw new Error('no claude agent was dated from its transcript')

    const plan: ClientPlan = {
      url: bridge.url,
      token: bridge.adminToken,
      sockets: SESSIONS.map((session) => ({ path: sim.socketPath(session), session })),
      rounds: ROUNDS,
      warmup: 20,
      encodings: ENCODINGS,
    }
    const r = await timedClient(plan)
    const f = (x: number) => x.toFixed(2).padStart(7)
    const plain = r.wire[''].bytes
    console.log(
      `bench/snapshot: ${AGENTS} agents (claude ${dated} dated from transcripts, codex, pi) + ${PLAIN} plain panes, ${SESSIONS.length} sessions, ${REPOS} repos, ${ROUNDS} rounds, ${(plain / 1024).toFixed(0)} KiB body (setup ${setupS.toFixed(1)} s)`,
    )
    console.log(`  client: its own process, node:http keep-alive; a read ends when the body is decoded and parsed`)
    console.log(`  ${`raw session.snapshot ×${SESSIONS.length} (floor)`.padEnd(40)} p50 ${f(pct(r.floor, 50))} ms  p99 ${f(pct(r.floor, 99))} ms`)
    for (const e of ENCODINGS) {
      const ms = r.reads[e]
      const label = `GET /snapshot, Accept-Encoding: ${e || '(none)'}`.padEnd(40)
      console.log(
        `  ${label} p50 ${f(pct(ms, 50))} ms  p99 ${f(pct(ms, 99))} ms  ratio p50 ${(pct(ms, 50) / pct(r.floor, 50)).toFixed(2)}×  p99 ${(pct(ms, 99) / pct(r.floor, 99)).toFixed(2)}×   (target p50 ≤ 0.2×, p99 ≤ 0.5×)`,
      )
    }
    console.log(`  (information) GET /healthz p50 ${f(pct(r.tiny, 50))} ms; client JSON.parse of the plain body p50 ${f(pct(r.parse, 50))} ms`)
    const wire = ENCODINGS.filter((e) => e).map((e) => `${e} → ${r.wire[e].encoding} ${r.wire[e].bytes} B (${(r.wire[e].bytes / plain).toFixed(3)}×)`)
    console.log(`  bytes on the wire: plain ${plain} B; ${wire.join('; ')}   (target ≤ 0.2×)`)
  } finally {
    await stack.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run()
