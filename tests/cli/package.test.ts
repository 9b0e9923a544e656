import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { pathToFileURL } from 'node:url'
import { normalizeClaudeLine } from '../../plugins/kind-claude/transcript/normalize.ts'
import { createServer, type Server } from 'node:net'
import { REPO_ROOT } from '../harness/bridge.ts'
import { copySources, expectWebClient, npm, pack } from '../harness/as-installed.ts'
import { cli, expectOneLineError, sandbox, startDaemon, type Daemon } from './helpers.ts'

// Each CLI call is a new node process: on a loaded 2-core machine one can take seconds.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

/**
 * The package as a user gets it: `npm pack`, then `npm install -g` of the tarball into a temp
 * prefix with production dependencies only, then the installed `bridge` runs with plain node.
 * The pack runs in a copy of the sources, so rebuilding the web client cannot disturb other
 * tests reading plugins/web/dist.
 */

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
const box = sandbox('bridge-pack-')
const src = join(box.root, 'src')
const prefix = join(box.root, 'prefix')
const bin = join(prefix, 'bin', 'bridge')
const pkgDir = join(prefix, 'lib', 'node_modules', 'herdr-bridge')
let tarball: string
let files: string[]
let daemon: Daemon

beforeAll(async () => {
  copySources(src)
  ;({ tarball, files } = await pack(src, box.root, 600_000))
  const installed = await npm(['install', '-g', '--prefix', prefix, tarball, '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], box.root, 600_000)
  expect(installed.exitCode, String(installed.stderr)).toBe(0)
  daemon = await startDaemon({ ...box.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}` }, ['--dir', box.dataDir], bin)
}, 900_000)

afterAll(async () => {
  await daemon?.stop()
  rmSync(box.root, { recursive: true, force: true })
})

describe('npm pack', () => {
  it(`is herdr-bridge-${version}.tgz with compiled JavaScript, the web client, README and LICENSE`, () => {
    expect(tarball.endsWith(`herdr-bridge-${version}.tgz`)).toBe(true)
    expect(files).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'cli/bin.mjs', 'dist/cli/main.js', 'dist/core/server.js', 'dist/plugins/web/dist/index.html']),
    )
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([])
    expect(files.filter((f) => f.startsWith('tests/') || f.startsWith('bench/'))).toEqual([])
  })
})

describe('the installed package', () => {
  it('has no dev dependency: no tsx, no node-pty', () => {
    const mods = readdirSync(join(pkgDir, 'node_modules'))
    expect(mods).not.toContain('tsx')
    expect(mods).not.toContain('node-pty')
    expect(mods).not.toContain('vite')
    expect(existsSync(join(prefix, 'bin', 'herdr-bridge'))).toBe(true)
  })

  it('answers /healthz and serves the web client at /', async () => {
    await expectWebClient(daemon.url)
  })

  it("counts a transcript in the bundle's worker thread with the kind's bundled counter, as normalize does", async () => {
    const fixture = join(REPO_ROOT, 'tests/transcript/fixtures/claude-kinds.jsonl')
    const lines = readFileSync(fixture, 'utf8').split('\n')
    const counts = lines.map((l) => (l.trim() ? normalizeClaudeLine(l).length : 0))
    const bundle = join(pkgDir, 'dist/bundle')
    const job = { path: fixture, from: 0, to: Buffer.byteLength(lines.join('\n')), maxLine: 8 << 20, counter: pathToFileURL(join(bundle, 'count-claude.js')).href }
    const script = `const { Worker } = await import('node:worker_threads')
const w = new Worker(new URL(${JSON.stringify(pathToFileURL(join(bundle, 'count-worker.js')).href)}), { execArgv: [], workerData: ${JSON.stringify(job)} })
w.on('message', (m) => console.log(JSON.stringify({ n: m.n, count: m.count, indexed: m.indexed, lines: m.offs.length })))`
    const r = await execa(process.execPath, ['--input-type=module', '-e', script], { cwd: box.root, reject: false })
    expect(r.exitCode, String(r.stderr)).toBe(0)
    const n = counts.filter((k) => k > 0).length
    expect(JSON.parse(String(r.stdout))).toEqual({ n, count: counts.reduce((a, b) => a + b, 0), indexed: job.to, lines: n })
  })

  it('bridge --version', async () => {
    const r = await cli(['--version'], box.env, bin)
    expect(String(r.stdout).trim()).toBe(version)
    const r2 = await cli(['--version'], box.env, join(prefix, 'bin', 'herdr-bridge'))
    expect(String(r2.stdout).trim()).toBe(version)
  })

  it('says a busy port in the words of the issue', async () => {
    const srv: Server = await new Promise((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => resolve(s))
    })
    const port = (srv.address() as { port: number }).port
    try {
      expectOneLineError(
        await cli(['serve', '--addr', `127.0.0.1:${port}`], box.env, bin),
        `127.0.0.1:${port} is already in use — is another bridge running? (\`bridge status\`) Choose another with --addr`,
      )
    } finally {
      srv.close()
    }
  })

  it('pairs against the installed daemon', async () => {
    const r = await cli(['pair', '--json', '--addr', `127.0.0.1:${daemon.port}`], box.env, bin)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    expect(JSON.parse(String(r.stdout))).toEqual({ url: daemon.url, code: expect.stringMatching(/^[0-9a-f]{8}$/) })
  })
})
