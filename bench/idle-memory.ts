/**
 * bench/idle-memory: what an idle daemon holds, by module. The sources are compiled as one file
 * per module (tsc, as dist/ ships them), so each function's code can be traced to its file: the
 * bridge serves with one herdr session for 10 s, writes a V8 heap snapshot (SIGUSR2), and each
 * SharedFunctionInfo, its bytecode and its script's source text are summed by script, then by
 * package or bridge folder. A bare Node HTTP server, idle as long, is the floor; its RSS and
 * heap are printed beside.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { startSim } from '../tests/harness/sim.ts'
import { freePort } from '../tests/harness/serve.ts'

const root = join(import.meta.dirname, '..')
const IDLE_MS = 10_000

function compile(out: string): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out, '--declaration', 'false'], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) throw new Error('tsc failed')
  if (existsSync(join(root, 'plugins/web/dist'))) cpSync(join(root, 'plugins/web/dist'), join(out, 'plugins/web/dist'), { recursive: true })
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`
const status = (pid: number, key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024

/** Code held per script URL: SharedFunctionInfos, what hangs off them (bytecode, metadata) and the script's source. */
function codeByScript(file: string): { byScript: Map<string, number>; total: number; heap: number; byKind: Map<string, number> } {
  const snap = JSON.parse(readFileSync(file, 'utf8'))
  const meta = snap.snapshot.meta
  const nf = meta.node_fields.length
  const ef = meta.edge_fields.length
  const nTypes: string[] = meta.node_types[0]
  const eTypes: string[] = meta.edge_types[0]
  const { nodes, edges, strings } = snap as { nodes: number[]; edges: number[]; strings: string[] }
  const iType = meta.node_fields.indexOf('type')
  const iName = meta.node_fields.indexOf('name')
  const iSize = meta.node_fields.indexOf('self_size')
  const iEdges = meta.node_fields.indexOf('edge_count')
  const count = nodes.length / nf
  const firstEdge = new Uint32Array(count + 1)
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e
    e += nodes[i * nf + iEdges] * ef
  }
  firstEdge[count] = edges.length
  const name = (i: number) => strings[nodes[i * nf + iName]]
  const size = (i: number) => nodes[i * nf + iSize]
  const edgeName = (e: number) => (eTypes[edges[e]] === 'element' || eTypes[edges[e]] === 'hidden' ? String(edges[e + 1]) : strings[edges[e + 1]])
  const target = (e: number) => edges[e + 2] / nf
  let heap = 0
  // Shallow sizes by kind: node type, and the constructor for objects.
  const byKind = new Map<string, number>()
  for (let i = 0; i < count; i++) {
    heap += size(i)
    const t = nTypes[nodes[i * nf + iType]]
    const k = t === 'object' ? `object ${name(i)}` : t === 'code' ? 'code (functions, bytecode, metadata)' : t
    byKind.set(k, (byKind.get(k) ?? 0) + size(i))
  }

  // Script nodes: code nodes with a `source` edge, named by their URL.
  const url = new Map<number, string>()
  const byScript = new Map<string, number>()
  const add = (u: string, n: number) => byScript.set(u, (byScript.get(u) ?? 0) + n)
  for (let i = 0; i < count; i++) {
    if (nTypes[nodes[i * nf + iType]] !== 'code') continue
    let src = -1
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += ef) if (edgeName(e) === 'source') src = size(target(e))
    if (src < 0) continue
    const u = name(i) || '(no name)'
    url.set(i, u)
    add(u, size(i) + src)
  }
  let total = 0
  for (const n of byScript.values()) total += n
  // SharedFunctionInfos: the script edge names the file; bytecode and metadata hang off them.
  const counted = new Uint8Array(count)
  for (let i = 0; i < count; i++) {
    if (nTypes[nodes[i * nf + iType]] !== 'code' || url.has(i)) continue
    let script = -1
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += ef) {
      const n = edgeName(e)
      if ((n === 'script' || n === 'script_or_debug_info') && url.has(target(e))) script = target(e)
    }
    if (script < 0) continue
    let n = counted[i] ? 0 : size(i)
    counted[i] = 1
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += ef) {
      const t = target(e)
      if (counted[t] || nTypes[nodes[t * nf + iType]] !== 'code' || url.has(t)) continue
      counted[t] = 1
      n += size(t)
    }
    add(url.get(script)!, n)
    total += n
  }
  return { byScript, total, heap, byKind }
}

/** A script URL → the package or bridge folder it belongs to. */
function groupOf(u: string, dist: string): string {
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)
  if (nm) return nm[1]
  if (u.startsWith('node:') || !u.includes('/')) return 'node (built-in modules)'
  const rel = u.replace(/^file:\/\//, '').replace(dist + '/', '')
  const parts = rel.split('/')
  return parts[0] === 'plugins' || parts[0] === 'lib' ? `bridge ${parts[0]}/${parts[1]}` : `bridge ${parts[0]}`
}

async function waitFor(child: ChildProcess, out: () => string, text: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!out().includes(text)) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${out()}`)
    if (Date.now() > end) throw new Error(`no "${text}" in:\n${out()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

export async function run(): Promise<void> {
  const box = mkdtempSync(join(tmpdir(), 'bench-idle-'))
  // Inside the tree, so the compiled modules resolve its node_modules.
  const dist = join(root, '.bench-tmp', 'idle-dist')
  rmSync(dist, { recursive: true, force: true })
  compile(dist)
  const home = join(box, 'home')
  mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 })
  const sim = await startSim({ home, sessions: ['default'] })
  const env = { ...process.env, ...sim.clientEnv(), BRIDGE_HERDR_BIN: sim.herdrBin, XDG_RUNTIME_DIR: join(home, 'run'), BRIDGE_DIR: join(home, 'data'), BRIDGE_LOG_LEVEL: '3' }
  const floorFile = join(box, 'floor.mjs')
  writeFileSync(floorFile, "import { createServer } from 'node:http'\ncreateServer((q, s) => s.end('{}')).listen(Number(process.argv[2]), '127.0.0.1')\n")
  const procs: ChildProcess[] = []
  try {
    const start = async (args: string[], cwd: string) => {
      const child = spawn(process.execPath, ['--heapsnapshot-signal=SIGUSR2', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
      procs.push(child)
      let out = ''
      child.stdout!.on('data', (d) => (out += d))
      child.stderr!.on('data', (d) => (out += d))
      return { child, out: () => out }
    }
    const bdir = join(box, 'b')
    const fdir = join(box, 'f')
    mkdirSync(bdir)
    mkdirSync(fdir)
    const b = await start([join(dist, 'cli/main.js'), 'serve', '--addr', `127.0.0.1:${await freePort()}`], bdir)
    const f = await start([floorFile, String(await freePort())], fdir)
    await waitFor(b.child, b.out, 'herdr session default found')
    await new Promise((r) => setTimeout(r, IDLE_MS))
    const rss = { bridge: status(b.child.pid!, 'VmRSS'), floor: status(f.child.pid!, 'VmRSS') }
    const snaps: Record<string, ReturnType<typeof codeByScript>> = {}
    for (const [k, p, dir] of [
      ['bridge', b.child, bdir],
      ['floor', f.child, fdir],
    ] as const) {
      p.kill('SIGUSR2')
      const end = Date.now() + 60_000
      let file: string | undefined
      // The snapshot is written when its file is complete and the process is responsive again.
      while (!(file = readdirSync(dir).find((x) => x.endsWith('.heapsnapshot'))) && Date.now() < end) await new Promise((r) => setTimeout(r, 100))
      if (!file) throw new Error(`no heap snapshot from the ${k}`)
      // Complete when the JSON closes (the strings table is last).
      while (!readFileSync(join(dir, file), 'latin1').trimEnd().endsWith(']}')) {
        if (Date.now() > end) throw new Error(`the ${k}'s heap snapshot never completed`)
        await new Promise((r) => setTimeout(r, 300))
      }
      snaps[k] = codeByScript(join(dir, file))
    }
    const groups = new Map<string, number>()
    for (const [u, n] of snaps.bridge.byScript) groups.set(groupOf(u, dist), (groups.get(groupOf(u, dist)) ?? 0) + n)
    console.log(`Idle after ${IDLE_MS / 1000} s with one herdr session (compiled per module, as dist/ ships):`)
    console.log(`  RSS   bridge ${mib(rss.bridge)}   bare node HTTP server ${mib(rss.floor)}   (+${mib(rss.bridge - rss.floor)})`)
    console.log(`  V8 heap (snapshot)   bridge ${mib(snaps.bridge.heap)}   floor ${mib(snaps.floor.heap)}   (+${mib(snaps.bridge.heap - snaps.floor.heap)})`)
    console.log(`  code and sources held (functions, bytecode, script text): bridge ${mib(snaps.bridge.total)}, floor ${mib(snaps.floor.total)}`)
    console.log('  V8 heap by kind, bridge minus floor (top 12):')
    const kinds = [...snaps.bridge.byKind].map(([k, n]) => [k, n - (snaps.floor.byKind.get(k) ?? 0)] as const)
    for (const [k, n] of kinds.sort((a, c) => c[1] - a[1]).slice(0, 12)) console.log(`    ${mib(n).padStart(9)}  ${k}`)
    console.log('  code and sources by package or bridge folder (top 20):')
    for (const [g, n] of [...groups].sort((a, c) => c[1] - a[1]).slice(0, 20)) console.log(`    ${mib(n).padStart(9)}  ${g}`)
  } finally {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM')
    await sim.stop()
    rmSync(box, { recursive: true, force: true })
    rmSync(dist, { recursive: true, force: true })
  }
}
