/**
 * Start-up, idle memory and install footprint, each against its floor in the same run.
 *
 * The package is what a user installs: `npm pack` of a copy of this tree, then `npm install -g`
 * of the tarball into a temp prefix with production dependencies only; its `bridge` runs with
 * plain node. The floor is a bare Node HTTP server in a file, started the same way (node + file).
 *   start-up   spawn → first answered GET /healthz, median of 5, runs interleaved
 *              package ≤ 2.5× floor; clone (`node cli/bin.mjs serve`) ≤ 1.3× package
 *   --version  `node cli/bin.mjs --version` in the clone ≤ 3× `node -e 0` (median of 9);
 *              `npx --no-install bridge --version` beside `npx -c 'node -e 0'` (npm's own start)
 *   idle RSS   after 10 s idle with one herdr session (the simulator): package ≤ 1.25× floor
 *   footprint  the installed package's node_modules: bytes and packages, and firebase-admin's
 *              share (packages only it pulls in)
 *   executable when scripts/sea.mjs has built dist/sea/bridge: its size and start-up
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { startSim } from '../tests/harness/sim.ts'
import { freePort } from '../tests/harness/serve.ts'

const root = join(import.meta.dirname, '..')
const RUNS = 5
const IDLE_MS = 10_000

// npm run passes its own npm_* settings down; the inner npm gets none of them.
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')))

/** `npm pack` of a copy of the sources, installed globally into a temp prefix; returns the package folder. */
function installPackage(box: string): string {
  const src = join(box, 'src')
  const skip = new Set(['node_modules', '.git', 'dist', '.bench-tmp'])
  cpSync(root, src, {
    recursive: true,
    filter: (from) =>
      !relative(root, from)
        .split('/')
        .some((p) => skip.has(p)),
  })
  symlinkSync(join(root, 'node_modules'), join(src, 'node_modules'))
  const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', box], { cwd: src, env: npmEnv, encoding: 'utf8' })
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr.slice(-2000)}`)
  const info = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')))
  const prefix = join(box, 'prefix')
  const inst = spawnSync('npm', ['install', '-g', '--prefix', prefix, join(box, info[0].filename), '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: box,
    env: npmEnv,
    encoding: 'utf8',
  })
  if (inst.status !== 0) throw new Error(`npm install failed: ${inst.stderr.slice(-2000)}`)
  return join(prefix, 'lib', 'node_modules', 'herdr-bridge')
}

function duBytes(path: string): number {
  const r = spawnSync('du', ['-sb', path], { encoding: 'utf8' })
  return Number(r.stdout.split('\t')[0])
}

/** Installed packages (folders with a package.json directly under a node_modules), by path. */
function packagesUnder(dir: string, out = new Set<string>()): Set<string> {
  const nm = join(dir, 'node_modules')
  if (!existsSync(nm)) return out
  for (const e of readdirSync(nm, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue
    const dirs = e.name.startsWith('@') ? readdirSync(join(nm, e.name)).map((s) => join(nm, e.name, s)) : [join(nm, e.name)]
    for (const d of dirs) {
      if (!existsSync(join(d, 'package.json'))) continue
      out.add(d)
      packagesUnder(d, out)
    }
  }
  return out
}

/** A node of `npm ls --json --long`: where the package lies and what it pulls in. */
type NpmNode = { path?: string; dependencies?: Record<string, NpmNode> }

/** Packages only firebase-admin needs: `npm ls` trees of every other dependency subtracted. */
function firebaseShare(pkgDir: string): { count: number; bytes: number } {
  const r = spawnSync('npm', ['ls', '--all', '--omit=dev', '--json', '--long'], { cwd: pkgDir, env: npmEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const tree = JSON.parse(r.stdout) as NpmNode
  const paths = (node: NpmNode, acc: Set<string>) => {
    for (const [, dep] of Object.entries(node.dependencies ?? {})) {
      if (dep.path && !acc.has(dep.path)) {
        acc.add(dep.path)
        paths(dep, acc)
      }
    }
    return acc
  }
  const fb = new Set<string>()
  const others = new Set<string>()
  for (const [name, dep] of Object.entries(tree.dependencies ?? {})) {
    const set = name === 'firebase-admin' ? fb : others
    if (dep.path) set.add(dep.path)
    paths(dep, set)
  }
  const only = [...fb].filter((p) => !others.has(p))
  // Nested folders are counted once, by their outermost path.
  const outer = only.filter((p) => !only.some((q) => q !== p && p.startsWith(q + '/')))
  return { count: only.length, bytes: outer.reduce((n, p) => n + (existsSync(p) ? duBytes(p) : 0), 0) }
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

/** User + system CPU of a process so far, ms (10 ms ticks). */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(f[11]) + Number(f[12])) * 10
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met')

/** Wall time of a command to its exit, ms. */
function timed(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): number {
  const t = performance.now()
  const r = spawnSync(cmd, args, { ...opts, stdio: 'ignore' })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`)
  return performance.now() - t
}

export async function run(): Promise<void> {
  const box = mkdtempSync(join(tmpdir(), 'bench-startup-'))
  const home = join(box, 'home')
  mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 })
  const sim = await startSim({ home, sessions: ['default'] })
  const env = { ...npmEnv, ...sim.clientEnv(), BRIDGE_HERDR_BIN: sim.herdrBin, XDG_RUNTIME_DIR: join(home, 'run'), BRIDGE_DIR: join(home, 'data'), BRIDGE_LOG_LEVEL: '3' }
  const floorFile = join(box, 'floor.mjs')
  writeFileSync(
    floorFile,
    "import { createServer } from 'node:http'\ncreateServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{\"ok\":true}') }).listen(Number(process.argv[2]), '127.0.0.1')\n",
  )
  const seaBin = join(root, 'dist/sea/bridge')
  try {
    const t0 = performance.now()
    const pkgDir = installPackage(box)
    const installS = (performance.now() - t0) / 1000
    const floorArgs = (port: number) => [process.execPath, floorFile, String(port)]
    const pkgArgs = (port: number) => [process.execPath, join(pkgDir, 'cli/bin.mjs'), 'serve', '--addr', `127.0.0.1:${port}`]
    const cloneArgs = (port: number) => [process.execPath, join(root, 'cli/bin.mjs'), 'serve', '--addr', `127.0.0.1:${port}`]
    const seaArgs = (port: number) => [seaBin, 'serve', '--addr', `127.0.0.1:${port}`]

    const startOnce = async (args: (port: number) => string[]) => {
      const port = await freePort()
      const [cmd, ...rest] = args(port)
      const t = performance.now()
      const child = spawn(cmd, rest, { env, stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      child.stdout!.on('data', (d) => (out += d))
      child.stderr!.on('data', (d) => (out += d))
      await firstHealthz(port, child)
      return { ms: performance.now() - t, cpu: cpuMs(child.pid!), child, output: () => out }
    }
    const kinds: [string, (port: number) => string[]][] = [
      ['floor', floorArgs],
      ['package', pkgArgs],
      ['clone', cloneArgs],
    ]
    if (existsSync(seaBin)) kinds.push(['sea', seaArgs])
    // One warm-up each (disk cache, the clone's bundle made if a source changed), then interleaved runs.
    for (const [, a] of kinds) await stop((await startOnce(a)).child)
    const times = new Map<string, number[]>(kinds.map(([k]) => [k, []]))
    const cpus = new Map<string, number[]>(kinds.map(([k]) => [k, []]))
    for (let i = 0; i < RUNS; i++)
      for (const [k, a] of kinds) {
        const s = await startOnce(a)
        times.get(k)!.push(s.ms)
        cpus.get(k)!.push(s.cpu)
        await stop(s.child)
      }
    const m = (k: string) => median(times.get(k)!)
    const cpu = (k: string) => median(cpus.get(k)!)
    const floor = m('floor')
    const pkg = m('package')
    const clone = m('clone')
    console.log(`Start-up (spawn → first /healthz, median of ${RUNS}, interleaved):`)
    console.log(`  bare node HTTP server (floor)        ${floor.toFixed(0)} ms`)
    console.log(`  bridge serve, installed package      ${pkg.toFixed(0)} ms → ${(pkg / floor).toFixed(2)}× floor (target ≤ 2.5×: ${verdict(pkg / floor <= 2.5)})`)
    console.log(`  bridge serve, clone (cli/bin.mjs)    ${clone.toFixed(0)} ms → ${(clone / pkg).toFixed(2)}× package (target ≤ 1.3×: ${verdict(clone / pkg <= 1.3)})`)
    if (times.has('sea')) console.log(`  bridge serve, single executable      ${m('sea').toFixed(0)} ms → ${(m('sea') / floor).toFixed(2)}× floor (information)`)
    // CPU the process used until it answered: what the wall time is on an idle machine, less the waits.
    console.log(
      `  (information) CPU until the first answer: floor ${cpu('floor')} ms, package ${cpu('package')} ms (${(cpu('package') / cpu('floor')).toFixed(2)}×), clone ${cpu('clone')} ms (${(cpu('clone') / cpu('package')).toFixed(2)}× package)${cpus.has('sea') ? `, executable ${cpu('sea')} ms` : ''}`,
    )

    // --version: the bridge's own start against node's, and npx's start beside npm's own.
    const v: number[] = []
    const bare: number[] = []
    for (let i = 0; i < 9; i++) {
      bare.push(timed(process.execPath, ['-e', '0']))
      v.push(timed(process.execPath, [join(root, 'cli/bin.mjs'), '--version'], { cwd: root }))
    }
    const npx: number[] = []
    const npxFloor: number[] = []
    for (let i = 0; i < 3; i++) {
      npxFloor.push(timed('npx', ['--no-install', '-c', 'node -e 0'], { cwd: root, env: npmEnv }))
      npx.push(timed('npx', ['--no-install', 'bridge', '--version'], { cwd: root, env: npmEnv }))
    }
    console.log(`--version in the clone (median of 9 / 3):`)
    console.log(`  node -e 0 (floor)                    ${median(bare).toFixed(0)} ms`)
    console.log(
      `  node cli/bin.mjs --version           ${median(v).toFixed(0)} ms → ${(median(v) / median(bare)).toFixed(2)}× floor (target ≤ 3×: ${verdict(median(v) / median(bare) <= 3)})`,
    )
    console.log(
      `  npx --no-install bridge --version    ${median(npx).toFixed(0)} ms → ${(median(npx) / median(bare)).toFixed(2)}× node -e 0, ${(median(npx) / median(npxFloor)).toFixed(2)}× npx -c 'node -e 0' (${median(npxFloor).toFixed(0)} ms: npm's own start)`,
    )

    const f = await startOnce(floorArgs)
    const b = await startOnce(pkgArgs)
    const c = await startOnce(cloneArgs)
    await sim.request('ping', {})
    const until = Date.now() + 60_000
    const found = () => b.output().includes('herdr session default found') && c.output().includes('herdr session default found')
    while (!found() && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    if (!found()) throw new Error(`the bridge never found the herdr session:\n${b.output()}`)
    await new Promise((r) => setTimeout(r, IDLE_MS))
    const floorRss = rssMiB(f.child.pid!)
    const pkgRss = rssMiB(b.child.pid!)
    const cloneRss = rssMiB(c.child.pid!)
    console.log(`Idle RSS after ${IDLE_MS / 1000} s with one herdr session:`)
    console.log(`  bare node HTTP server (floor)        ${floorRss.toFixed(1)} MiB`)
    console.log(
      `  bridge serve, installed package      ${pkgRss.toFixed(1)} MiB → ${(pkgRss / floorRss).toFixed(2)}× floor (target ≤ 1.25×: ${verdict(pkgRss / floorRss <= 1.25)})`,
    )
    console.log(`  bridge serve, clone                  ${cloneRss.toFixed(1)} MiB → ${(cloneRss / floorRss).toFixed(2)}× floor (information)`)
    for (const x of [f, b, c]) await stop(x.child)

    const nmBytes = duBytes(join(pkgDir, 'node_modules'))
    const pkgs = packagesUnder(pkgDir)
    const fb = firebaseShare(pkgDir)
    console.log(`Install footprint (npm install -g of the tarball, production dependencies, ${installS.toFixed(0)} s):`)
    console.log(`  node_modules ${(nmBytes / 2 ** 20).toFixed(1)} MiB, ${pkgs.size} packages; the package itself ${(duBytes(pkgDir) / 2 ** 20 - nmBytes / 2 ** 20).toFixed(1)} MiB`)
    console.log(`  firebase-admin and what only it pulls in: ${(fb.bytes / 2 ** 20).toFixed(1)} MiB, ${fb.count} packages`)
    if (existsSync(seaBin))
      console.log(
        `Single executable dist/sea/bridge: ${(statSync(seaBin).size / 2 ** 20).toFixed(1)} MiB (node itself ${(statSync(process.execPath).size / 2 ** 20).toFixed(1)} MiB)`,
      )
  } finally {
    await sim.stop()
    rmSync(box, { recursive: true, force: true })
  }
}
