/**
 * GET /snapshot against the raw `session.snapshot` round trips it wraps.
 *
 * 200 agents in 3 herdr sessions (the simulator, real PTYs), their panes spread over 40 git
 * repositories, a mix of kinds: claude with a transcript on disk (dated from its tail), codex and
 * pi, plus plain panes without an agent. The floor is the three `session.snapshot` calls made in
 * parallel over the socket; both are measured interleaved in the same run with warm caches.
 * Targets: p50 ≤ 0.25×, p99 ≤ 0.5× the floor; bytes on the wire with br or gzip ≤ 0.2× the plain
 * body.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { startStack } from '../tests/harness/stack.ts'
import { herdrRequest } from '../core/herdr/socket.ts'
import { encodeCwd } from '../plugins/kind-claude/transcript/locate.ts'

const SESSIONS = ['default', 'work', 'ops']
const AGENTS = 200
const REPOS = 40
const ROUNDS = 300
const PLAIN = 30
const KINDS = ['claude', 'codex', 'pi']

/** Bytes of one GET as they come off the wire with this Accept-Encoding. */
function wireBytes(url: string, token: string, acceptEncoding?: string): Promise<{ bytes: number; encoding?: string }> {
  const u = new URL(url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname, headers: { authorization: `Bearer ${token}`, ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) } },
      (res) => {
        let bytes = 0
        res.on('data', (c: Buffer) => (bytes += c.length))
        res.on('end', () => resolve({ bytes, encoding: res.headers['content-encoding'] as string | undefined }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end()
  })
}
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

    const raw = () => Promise.all(SESSIONS.map((s) => herdrRequest(sim.socketPath(s), 'session.snapshot', {}, { session: s })))
    const http = async () => {
      const res = await bridge.request('/snapshot')
      if (res.status !== 200) throw new Error(`/snapshot answered ${res.status}: ${await res.text()}`)
      return res.json()
    }
    await bridge.bridge.ingest!.settled()
    const first = (await http()) as any
    const n = first.result.snapshot.agents.length
    if (n !== AGENTS) throw new Error(`expected ${AGENTS} agents in the snapshot, got ${n}`)
    const dated = first.result.snapshot.agents.filter((a: any) => a.agent === 'claude' && a.last_activity_ts).length
    if (dated === 0) throw new Error('no claude agent was dated from its transcript')
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
    // Where an answer from memory still spends its time: the HTTP path with a tiny body, and the
    // client's own decoding of this body (both in this process, beside the bridge).
    const tinyMs: number[] = []
    const parseMs: number[] = []
    const text = JSON.stringify(first)
    for (let i = 0; i < ROUNDS; i++) {
      let t = performance.now()
      await (await bridge.request('/healthz')).json()
      tinyMs.push(performance.now() - t)
      t = performance.now()
      JSON.parse(text)
      parseMs.push(performance.now() - t)
    }
    const plain = await wireBytes(`${bridge.url}/snapshot`, bridge.adminToken)
    const br = await wireBytes(`${bridge.url}/snapshot`, bridge.adminToken, 'br')
    const gz = await wireBytes(`${bridge.url}/snapshot`, bridge.adminToken, 'gzip')
    const f = (x: number) => x.toFixed(2).padStart(7)
    console.log(
      `bench/snapshot: ${AGENTS} agents (claude ${dated} dated from transcripts, codex, pi) + ${PLAIN} plain panes, ${SESSIONS.length} sessions, ${REPOS} repos, ${ROUNDS} rounds, ${(bytes / 1024).toFixed(0)} KiB body (setup ${setupS.toFixed(1)} s)`,
    )
    console.log(`  raw session.snapshot ×${SESSIONS.length} (floor)  p50 ${f(pct(rawMs, 50))} ms  p99 ${f(pct(rawMs, 99))} ms`)
    console.log(`  GET /snapshot                   p50 ${f(pct(httpMs, 50))} ms  p99 ${f(pct(httpMs, 99))} ms`)
    console.log(
      `  ratio /snapshot ÷ floor         p50 ${(pct(httpMs, 50) / pct(rawMs, 50)).toFixed(2)}×   p99 ${(pct(httpMs, 99) / pct(rawMs, 99)).toFixed(2)}×   (target p50 ≤ 0.25×, p99 ≤ 0.5×)`,
    )
    console.log(`  (information) GET /healthz p50 ${f(pct(tinyMs, 50))} ms; client JSON.parse of the body p50 ${f(pct(parseMs, 50))} ms`)
    console.log(
      `  bytes on the wire: plain ${plain.bytes} B; ${br.encoding} ${br.bytes} B (${(br.bytes / plain.bytes).toFixed(3)}×); ${gz.encoding} ${gz.bytes} B (${(gz.bytes / plain.bytes).toFixed(3)}×)   (target ≤ 0.2×)`,
    )
  } finally {
    await stack.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run()
