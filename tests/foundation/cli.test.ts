import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { REPO_ROOT } from '../harness/bridge.ts'
import { freePort, untilListening } from '../harness/serve.ts'
import type { PostResponses } from '../../plugins/web/app/src/lib/api-types.ts'

// Each CLI call is a new node process: on a loaded 2-core machine one can take seconds.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const BIN = join(REPO_ROOT, 'cli/bin.mjs')

let daemon: ChildProcess
let dir: string
let env: NodeJS.ProcessEnv
let base: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-cli-'))
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  env = { ...process.env, BRIDGE_DIR: join(dir, 'data'), HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') }
  daemon = spawn(process.execPath, [BIN, 'serve', '--addr', `127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  await untilListening(daemon, base).listening
})

afterAll(async () => {
  daemon?.kill('SIGTERM')
  await new Promise((r) => daemon?.once('exit', r))
  rmSync(dir, { recursive: true, force: true })
})

const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  execa(process.execPath, [BIN, ...args], { env: { ...env, BRIDGE_ADDR: base.replace('http://', ''), ...extraEnv }, reject: false, timeout: 20_000 })

describe('cli against a running daemon', () => {
  it('pair prints the QR payload, and the code pairs a device', async () => {
    const r = await cli(['pair'])
    expect(r.exitCode).toBe(0)
    const payload = JSON.parse(r.stdout.trim().split('\n').at(-1)!)
    expect(payload.url).toBe(base)
    expect(payload.code).toMatch(/^[0-9a-f]{8}$/)
    expect(r.stdout).toMatch(/[▀▄█]/)
    const res = await fetch(`${base}/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: payload.code, device_name: 'cli-phone' }),
    })
    expect(res.status).toBe(200)
  })

  it('devices list shows paired devices and revoke removes one', async () => {
    const { code } = JSON.parse((await cli(['pair', '--json'])).stdout)
    const d = (await (
      await fetch(`${base}/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, device_name: 'to-revoke' }) })
    ).json()) as PostResponses['/pair']
    const list = await cli(['devices', 'list', '--json'])
    expect(list.exitCode).toBe(0)
    const devices = JSON.parse(list.stdout)
    expect(devices.map((x: { name: string }) => x.name)).toContain('to-revoke')
    expect(list.stdout).not.toContain(d.bearer)
    const table = await cli(['devices', 'list'])
    expect(table.stdout).toMatch(/ID\s+NAME/)
    expect(table.stdout).toContain('to-revoke')
    const rev = await cli(['devices', 'revoke', d.id])
    expect(rev.exitCode).toBe(0)
    expect(rev.stdout).toContain(`Revoked ${d.id} (to-revoke)`)
    expect((await fetch(`${base}/info`, { headers: { authorization: `Bearer ${d.bearer}` } })).status).toBe(401)
    const again = await cli(['devices', 'revoke', d.id])
    expect(again.exitCode).not.toBe(0)
    expect(again.stderr + again.stdout).toContain(`no device ${d.id}`)
  })

  it('says the daemon is not running, in one line, with a non-zero exit', async () => {
    const port = await freePort()
    const r = await cli(['devices', 'list'], { BRIDGE_ADDR: `127.0.0.1:${port}` })
    expect(r.exitCode).not.toBe(0)
    expect(r.stderr + r.stdout).toContain(`the bridge is not running at http://127.0.0.1:${port} (tried BRIDGE_ADDR); start it with \`npx bridge serve\``)
  })

  it('prints its version', async () => {
    const r = await cli(['--version'])
    expect(r.stdout.trim()).toBe('0.1.0')
  })
})
