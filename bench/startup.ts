/**
 * Start-up and idle memory of the daemon as installed (compiled JavaScript, plain node), each
 * against a bare `node -e` HTTP server measured in the same run:
 *   start-up:  process spawn → first answered GET /healthz (median of 5)
 *   idle RSS:  after 10 s idle with one herdr session (the simulator) connected
 * Goals (issue 23): start-up ≤ 3× the floor; idle RSS ≤ 60 MiB. The clone route (`cli/bin.mjs`
 * through tsx) is timed too, for information.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { startSim } from '../tests/harness/sim.ts'
import { freePort } from '../tests/harness/serve.ts'

const root = join(import.meta.dirname, '..')
const RUNS = 5
const IDLE_MS = 10_000

/** Compiles the sources as `npm pack` does, into a scratch folder. */
function compile(): string {
  const out = join(root, '.bench-tmp', 'startup-dist')
  rmSync(out, { recursive: true, force: true })
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out, '--declaration', 'false'], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) throw new Error('tsc failed')
  if (existsSync(join(root, 'plugins/web/dist'))) cpSync(join(root, 'plugins/web/dist'), join(out, 'plugins/web/dist'), { recursive: true })
  return out
}

async function firstHealthz(port: number, child: ChildProcess, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`)
      await res.body?.cancel()
      if (res.ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 2))
  }
  throw new Error('no /healthz answer')
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : NaN
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const gone = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await gone
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

export async function run(): Promise<void> {
  const dist = compile()
  const home = mkdtempSync(join(tmpdir(), 'bench-startup-'))
  mkdirSync(join(home, 'run'), { mode: 0o700 })
  const sim = await startSim({ home, sessions: ['default'] })
  const env = { ...process.env, ...sim.clientEnv(), BRIDGE_HERDR_BIN: sim.herdrBin, XDG_RUNTIME_DIR: join(home, 'run'), BRIDGE_DIR: join(home, 'data'), BRIDGE_LOG_LEVEL: '3' }
  const floorArgs = (port: number) => [
    '-e',
    `require('http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{"ok":true}') }).listen(${port}, '127.0.0.1')`,
  ]
  const bridgeArgs = (port: number) => [join(dist, 'cli/main.js'), 'serve', '--addr', `127.0.0.1:${port}`]
  const cloneArgs = (port: number) => [join(root, 'cli/bin.mjs'), 'serve', '--addr', `127.0.0.1:${port}`]

  const startOnce = async (args: (port: number) => string[]): Promise<{ ms: number; child: ChildProcess; port: number; output: () => string }> => {
    const port = await freePort()
    const t = performance.now()
    const child = spawn(process.execPath, args(port), { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.on('data', (d) => (out += d))
    child.stderr!.on('data', (d) => (out += d))
    await firstHealthz(port, child)
    return { ms: performance.now() - t, child, port, output: () => out }
  }
  const startup = async (args: (port: number) => string[]) => {
    const times: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const s = await startOnce(args)
      times.push(s.ms)
      await stop(s.child)
    }
    return median(times)
  }

  try {
    // One warm-up of each, so the first measured run does not pay for a cold disk cache.
    for (const a of [floorArgs, bridgeArgs]) await stop((await startOnce(a)).child)
    const floor = await startup(floorArgs)
    const bridge = await startup(bridgeArgs)
    const clone = await startup(cloneArgs)
    console.log(`Start-up (spawn → first /healthz, median of ${RUNS}):`)
    console.log(`  bare node -e HTTP server (floor)   ${floor.toFixed(0)} ms`)
    console.log(`  bridge serve, compiled (package)   ${bridge.toFixed(0)} ms → ${(bridge / floor).toFixed(2)}× floor (goal ≤ 3×: ${bridge / floor <= 3 ? 'met' : 'NOT met'})`)
    console.log(`  bridge serve, clone (tsx)          ${clone.toFixed(0)} ms → ${(clone / floor).toFixed(2)}× floor (information)`)

    const f = await startOnce(floorArgs)
    const b = await startOnce(bridgeArgs)
    await sim.request('ping', {})
    // Idle means connected to herdr and quiet: wait for the session, then the idle period.
    const until = Date.now() + 60_000
    while (!b.output().includes('herdr session default found') && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    if (!b.output().includes('herdr session default found')) throw new Error(`the bridge never found the herdr session:\n${b.output()}`)
    await new Promise((r) => setTimeout(r, IDLE_MS))
    const floorRss = rssMiB(f.child.pid!)
    const bridgeRss = rssMiB(b.child.pid!)
    console.log(`Idle RSS after ${IDLE_MS / 1000} s with one herdr session:`)
    console.log(`  bare node -e HTTP server (floor)   ${floorRss.toFixed(1)} MiB`)
    console.log(
      `  bridge serve, compiled (package)   ${bridgeRss.toFixed(1)} MiB → ${(bridgeRss / floorRss).toFixed(2)}× floor (goal ≤ 60 MiB: ${bridgeRss <= 60 ? 'met' : 'NOT met'})`,
    )
    await stop(f.child)
    await stop(b.child)
  } finally {
    await sim.stop()
    rmSync(home, { recursive: true, force: true })
    rmSync(dist, { recursive: true, force: true })
  }
}
