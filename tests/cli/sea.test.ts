import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { REPO_ROOT } from '../harness/bridge.ts'
import { copySources, expectWebClient } from '../harness/as-installed.ts'
import { cli, sandbox, startDaemon, type Daemon } from './helpers.ts'

// Building the executable copies node (~100 MB) and injects the bundle: tens of seconds under load.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

/**
 * The single executable as a user gets it: `node scripts/sea.mjs` in a copy of the sources, then
 * dist/sea/bridge run on its own, with no node_modules and no sources beside it (it is copied
 * into an empty folder first).
 */

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
const box = sandbox('bridge-sea-')
const src = join(box.root, 'src')
const exe = join(box.root, 'bin', 'bridge')
let daemon: Daemon

beforeAll(async () => {
  copySources(src)
  const built = await execa(process.execPath, ['scripts/sea.mjs'], { cwd: src, reject: false, timeout: 600_000 })
  expect(built.exitCode, `${built.stdout}\n${built.stderr}`).toBe(0)
  cpSync(join(src, 'dist/sea/bridge'), exe)
  rmSync(src, { recursive: true, force: true })
  daemon = await startDaemon(box.env, ['--dir', box.dataDir], exe)
}, 900_000)

afterAll(async () => {
  await daemon?.stop()
  rmSync(box.root, { recursive: true, force: true })
})

describe('the single executable (linux-x64)', () => {
  it('is one file beside nothing else', () => {
    expect(readdirSync(join(box.root, 'bin'))).toEqual(['bridge'])
    expect(statSync(exe).mode & 0o111).not.toBe(0)
  })

  it('bridge --version', async () => {
    const r = await cli(['--version'], box.env, exe)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    expect(String(r.stdout).trim()).toBe(version)
    // No warning about an experimental feature on stderr.
    expect(String(r.stderr)).toBe('')
  })

  it('answers /healthz and serves the web client it carries', async () => {
    await expectWebClient(daemon.url)
    // Taken out of the executable into the user's cache folder, once per web client build.
    const cache = join(box.env.XDG_CACHE_HOME ?? join(box.home, '.cache'), 'herdr-bridge')
    expect(existsSync(cache)).toBe(true)
    expect(readdirSync(cache).filter((d) => d.startsWith('web-'))).toHaveLength(1)
  })

  it('pairs against itself', async () => {
    const r = await cli(['pair', '--json', '--addr', `127.0.0.1:${daemon.port}`], box.env, exe)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    expect(JSON.parse(String(r.stdout))).toEqual({ url: daemon.url, code: expect.stringMatching(/^[0-9a-f]{8}$/) })
  })
})
