/**
 * GET /diff and GET /diff?context=1 against the raw git they wrap.
 *
 * A repository of 5,000 files with 300 changed (250 modified, 30 untracked, 20 deleted), one
 * agent pane in it (the simulator). The floor is `git status --porcelain=v2 -z
 * --untracked-files=all` and `git diff HEAD` run directly, in parallel, as a minimal
 * implementation would; the sequential sum is printed too. All measured interleaved in the same
 * run. Each round changes a tracked file (content and mtime) before a cold floor, changes it again
 * before a cold /diff, then times both warm on that unchanged state (the /diff just before filled
 * the bridge's caches; how often they answered is printed). Targets: p50 warm ≤ 1.2×, cold ≤
 * 1.3×. Also printed: the herdr `agent.get` round trip (the simulator answers it, so it is not
 * free) and `readGit` called in-process, to attribute the gap.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync, unlinkSync } from 'node:fs'
import { execa } from 'execa'
import { startStack } from '../tests/harness/stack.ts'
import { herdrRequest } from '../core/herdr/socket.ts'
import { readGit } from '../lib/git/status.ts'
import { cacheHits } from '../lib/git/file-signature.ts'
import type { GetResponses } from '../plugins/web/app/src/lib/api-types.ts'

const FILES = 5000
const MODIFIED = 250
const UNTRACKED = 30
const DELETED = 20
const ROUNDS = 60

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

export async function run(): Promise<void> {
  const t0 = performance.now()
  const stack = await startStack()
  try {
    const { sim, bridge, home } = stack
    const dir = join(home, 'src', 'big')
    mkdirSync(dir, { recursive: true })
    const env = { ...process.env, HOME: home, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' }
    const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, env, stdio: 'pipe', maxBuffer: 1 << 28 })
    git('init', '-q', '-b', 'main')
    const body = (i: number, v: string) => Array.from({ length: 40 }, (_, l) => `// file ${i} line ${l} ${v}`).join('\n') + '\n'
    const path = (i: number) => join(dir, `pkg${i % 50}`, `mod${Math.floor(i / 50) % 10}`, `f${i}.ts`)
    for (let i = 0; i < FILES; i++) {
      mkdirSync(join(path(i), '..'), { recursive: true })
      writeFileSync(path(i), body(i, 'v1'))
    }
    git('add', '-A')
    git('commit', '-q', '-m', 'initial')
    for (let i = 0; i < MODIFIED; i++) writeFileSync(path(i * 17), body(i * 17, 'v2').replace('line 20', 'line twenty'))
    for (let i = 0; i < DELETED; i++) unlinkSync(path(i * 17 + 5))
    for (let i = 0; i < UNTRACKED; i++) writeFileSync(join(dir, `pkg${i}`, `new${i}.ts`), body(i, 'new'))

    const ws = await sim.request('workspace.create', { cwd: dir })
    const pane = ws.root_pane.pane_id
    await sim.request('pane.report_agent', { pane_id: pane, source: 'custom:bench', agent: 'claude', state: 'idle' })
    const setupS = (performance.now() - t0) / 1000

    const gitEnv = { ...env, GIT_OPTIONAL_LOCKS: '0' }
    const status = () => execa('git', ['status', '--porcelain=v2', '-z', '--untracked-files=all'], { cwd: dir, env: gitEnv })
    const diff = () => execa('git', ['diff', 'HEAD', '--no-color'], { cwd: dir, env: gitEnv, maxBuffer: 1 << 28 })
    const floor = () => Promise.all([status(), diff()])
    const sequential = async () => {
      await status()
      await diff()
    }
    // Timed plain, like the floor's raw output; what compression adds is reported apart below.
    const http = async (q: string, encoding = 'identity') => {
      const res = await bridge.request(`/diff?pane=${encodeURIComponent(pane)}${q}`, { headers: { 'accept-encoding': encoding } })
      if (res.status !== 200) throw new Error(`/diff answered ${res.status}: ${await res.text()}`)
      return res.json()
    }
    const first = (await http('')) as GetResponses['/diff']
    const changed = MODIFIED + UNTRACKED + DELETED
    if (first.files.length !== changed) throw new Error(`expected ${changed} files, got ${first.files.length}`)
    for (let i = 0; i < 5; i++) await Promise.all([floor(), http(''), http('&context=1')])

    const agentGet = () => herdrRequest(sim.socketPath('default'), 'agent.get', { target: pane }, { session: 'default' })
    const ms = {
      floor: [] as number[],
      seq: [] as number[],
      full: [] as number[],
      ctx: [] as number[],
      herdr: [] as number[],
      read: [] as number[],
      coldFloor: [] as number[],
      coldFull: [] as number[],
      gzip: [] as number[],
    }
    let edits = 0
    /** A real change: one modified file gets new content (and a new mtime and size). */
    const change = () => {
      edits++
      const i = (edits % MODIFIED) * 17
      writeFileSync(path(i), body(i, `v${edits + 2}`).replace('line 20', `line twenty ${'x'.repeat(edits % 7)}`))
    }
    const time = async (into: number[], fn: () => Promise<unknown>) => {
      const t = performance.now()
      await fn()
      into.push(performance.now() - t)
    }
    const hits = () => cacheHits.layout + cacheHits.refs + cacheHits.counts
    let coldHits = 0
    let warmHits = 0
    for (let i = 0; i < ROUNDS; i++) {
      change()
      await time(ms.coldFloor, floor)
      change()
      let h = hits()
      await time(ms.coldFull, () => http(''))
      coldHits += hits() - h
      // Warm: nothing changed since the bridge's cold read just above.
      await time(ms.floor, floor)
      h = hits()
      await time(ms.full, () => http(''))
      warmHits += hits() - h
      await time(ms.seq, sequential)
      await time(ms.ctx, () => http('&context=1'))
      await time(ms.herdr, agentGet)
      await time(ms.read, () => readGit(dir, { diff: true, env: bridge.env }))
      await time(ms.gzip, () => http('', 'gzip'))
    }
    const f = (x: number) => x.toFixed(1).padStart(7)
    const kib = (JSON.stringify(first).length / 1024).toFixed(0)
    console.log(`bench/diff: ${FILES} files, ${changed} changed, ${ROUNDS} rounds, ${kib} KiB body (setup ${setupS.toFixed(1)} s)`)
    console.log(`  git status + git diff HEAD, parallel (floor)   p50 ${f(pct(ms.floor, 50))} ms  p99 ${f(pct(ms.floor, 99))} ms`)
    console.log(`  git status then git diff HEAD, sequential      p50 ${f(pct(ms.seq, 50))} ms  p99 ${f(pct(ms.seq, 99))} ms`)
    console.log(`  GET /diff                                      p50 ${f(pct(ms.full, 50))} ms  p99 ${f(pct(ms.full, 99))} ms`)
    console.log(`  GET /diff?context=1                            p50 ${f(pct(ms.ctx, 50))} ms  p99 ${f(pct(ms.ctx, 99))} ms`)
    console.log(`  herdr agent.get round trip (simulator)        p50 ${f(pct(ms.herdr, 50))} ms`)
    console.log(`  readGit in-process (no HTTP, no herdr)         p50 ${f(pct(ms.read, 50))} ms`)
    console.log(`  (information) GET /diff, Accept-Encoding: gzip (compressed, then decoded by this client)  p50 ${f(pct(ms.gzip, 50))} ms`)
    const r = (a: number[]) => (pct(a, 50) / pct(ms.floor, 50)).toFixed(2)
    console.log(`  cold: floor after a change                     p50 ${f(pct(ms.coldFloor, 50))} ms  p99 ${f(pct(ms.coldFloor, 99))} ms`)
    console.log(`  cold: GET /diff after a change                 p50 ${f(pct(ms.coldFull, 50))} ms  p99 ${f(pct(ms.coldFull, 99))} ms`)
    console.log(
      `  ratio warm /diff ÷ floor p50 ${r(ms.full)}× (target ≤ 1.2×)   cold /diff ÷ cold floor p50 ${(pct(ms.coldFull, 50) / pct(ms.coldFloor, 50)).toFixed(2)}× (target ≤ 1.3×)`,
    )
    console.log(`  bridge's git caches (layout, refs, counts) answered per /diff: warm ${(warmHits / ROUNDS).toFixed(1)}, cold ${(coldHits / ROUNDS).toFixed(1)}`)
    console.log(`  /diff?context=1 ÷ floor p50 ${r(ms.ctx)}×   readGit ÷ floor p50 ${r(ms.read)}×`)
    const withHerdr = pct(ms.floor, 50) + pct(ms.herdr, 50)
    console.log(
      `  ratio /diff ÷ (floor + agent.get) p50 ${(pct(ms.full, 50) / withHerdr).toFixed(2)}×   /diff ÷ sequential git p50 ${(pct(ms.full, 50) / pct(ms.seq, 50)).toFixed(2)}×`,
    )
  } finally {
    await stack.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run()
