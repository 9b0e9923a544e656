import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { NetworkInterfaceInfo } from 'node:os'
import { startSim, type Sim } from '../harness/sim.ts'
import { cli, expectOneLineError, sandbox, startDaemon, type Daemon } from './helpers.ts'
import { reachableAddresses, isTailnet } from '../../cli/addresses.ts'
import { startBridge } from '../harness/bridge.ts'
import pairing from '../../plugins/pairing/index.ts'
import health from '../../plugins/health/index.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

// Each CLI call is a new node process: on a loaded 2-core machine one can take seconds.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

/** `serve` beside herdr: its session lines, `status`, `pair`, and run files for clients elsewhere. */

const box = sandbox()
let sim: Sim
let daemon: Daemon
let env: NodeJS.ProcessEnv

/** Nothing listens on port 9: an alert to this topic fails quietly. */
const NTFY_URL = 'http://127.0.0.1:9/secret-topic'

beforeAll(async () => {
  sim = await startSim({ home: box.home, sessions: ['default', 'work'] })
  env = { ...box.env, ...sim.clientEnv(), BRIDGE_HERDR_BIN: sim.herdrBin }
  // FCM finds a key (it is only read at a send, and no device has a push token); ntfy gets a topic.
  mkdirSync(box.dataDir, { recursive: true, mode: 0o700 })
  writeFileSync(join(box.dataDir, 'serviceAccount.json'), JSON.stringify({ type: 'service_account', project_id: 'bridge-test', client_email: 'b@bridge-test.iam' }), {
    mode: 0o600,
  })
  daemon = await startDaemon({ ...env, BRIDGE_NTFY_URL: NTFY_URL, BRIDGE_NTFY_TOKEN: 'tk' })
  await daemon.waitFor('herdr session work found')
})

afterAll(async () => {
  await daemon?.stop()
  await sim?.stop()
  rmSync(box.root, { recursive: true, force: true })
})

describe('serve', () => {
  it('prints one line per herdr session found, with its protocol', () => {
    const found = daemon
      .output()
      .split('\n')
      .filter((l) => l.includes('herdr session') && l.includes('found'))
    expect(found).toHaveLength(2)
    expect(daemon.output()).toContain(`herdr session default found at ${sim.socketPath('default')} (herdr 0.8.0, protocol 20)`)
    expect(daemon.output()).toContain(`herdr session work found at ${sim.socketPath('work')} (herdr 0.8.0, protocol 20)`)
    expect(daemon.output()).not.toContain('no herdr session is reachable')
  })

  it('and one line when a session is lost', async () => {
    await sim.stopSession('work')
    await daemon.waitFor(/herdr session work lost: /)
    await sim.startSession('work')
    await daemon.waitFor(/herdr session work lost: [^\n]*\n[\s\S]*herdr session work found/)
  })

  it('writes a private run file naming its data dir', () => {
    const file = join(box.run, 'herdr-bridge', `${daemon.port}.json`)
    expect(statSync(join(box.run, 'herdr-bridge')).mode & 0o777).toBe(0o700)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ pid: daemon.proc.pid, url: daemon.url, data_dir: box.dataDir })
  })
})

describe('status', () => {
  it('exits 0 with the daemon up and herdr answering', async () => {
    const r = await cli(['status'], { ...env, BRIDGE_ADDR: `127.0.0.1:${daemon.port}` })
    expect(r.exitCode, String(r.stderr)).toBe(0)
    const out = String(r.stdout)
    expect(out).toMatch(new RegExp(`^bridge +running at ${daemon.url} \\(pid ${daemon.proc.pid}\\), version 0\\.1\\.0 \\(API \\d+\\), up \\d+`, 'm'))
    expect(out).toMatch(new RegExp(`^data dir +${box.dataDir}$`, 'm'))
    expect(out).toMatch(/^devices +0 paired$/m)
    expect(out).toContain(
      [
        'alert channels (`npx bridge notify test` sends a test alert):',
        `  ✓ fcm      service account from ${join(box.dataDir, 'serviceAccount.json')} (push.service_account_path), project bridge-test, as b@bridge-test.iam; 0 devices with a push token`,
        `  ✓ webpush  VAPID key pair in ${join(box.dataDir, 'plugins/notify-webpush/webpush-vapid.json')}; browsers subscribe from the web app`,
        '  ✓ ntfy     topic http://127.0.0.1:9/… with a token',
        '  – webhook  not configured: set BRIDGE_WEBHOOK_URL (or notify.webhooks)',
        'herdr sessions (this bridge speaks protocol 20):',
      ].join('\n'),
    )
    expect(out).toContain(`  ✓ default  herdr 0.8.0, protocol 20, connected  ${sim.socketPath('default')}`)
  })

  it('--json carries the same facts', async () => {
    const r = await cli(['status', '--json', '--addr', `127.0.0.1:${daemon.port}`], env)
    expect(r.exitCode).toBe(0)
    const s = JSON.parse(String(r.stdout)) as GetResponses['/admin/status'] & { running: boolean; ok: boolean; url: string }
    expect(s).toMatchObject({
      running: true,
      ok: true,
      url: daemon.url,
      version: '0.1.0',
      pid: daemon.proc.pid,
      listen: { addr: `127.0.0.1:${daemon.port}`, url: daemon.url },
      public_url: daemon.url,
      data_dir: box.dataDir,
      devices: 0,
      herdr: { expected_protocol: 20 },
    })
    expect(s.alerts.map((a) => [a.channel, a.loaded, a.configured])).toEqual([
      ['fcm', true, true],
      ['webpush', true, true],
      ['ntfy', true, true],
      ['webhook', true, false],
    ])
    expect(s.uptime_s).toBeGreaterThanOrEqual(0)
    expect(s.herdr.sessions.map((x) => [x.name, x.answers, x.protocol, x.herdr_version])).toEqual([
      ['default', true, 20, '0.8.0'],
      ['work', true, 20, '0.8.0'],
    ])
  })
})

describe('status of a bridge without the notifier plugins', () => {
  it('names each channel as not loaded, with the line to add', async () => {
    const b = await startBridge({ user: { plugins: [pairing, health] }, env: { BRIDGE_WEBHOOK_URL: 'https://hooks.example/x' } })
    try {
      const r = await cli(['status', '--json', '--url', b.url, '--dir', b.dataDir], env)
      expect(r.exitCode, String(r.stderr)).toBe(1)
      expect(JSON.parse(String(r.stdout)).alerts).toEqual(
        ['fcm', 'webpush', 'ntfy', 'webhook'].map((channel) => ({
          channel,
          loaded: false,
          configured: false,
          detail: `not loaded: add the notify-${channel} plugin to bridge.config.ts`,
        })),
      )
    } finally {
      await b.close()
    }
  })
})

describe('pair', () => {
  it('warns about a loopback URL and lists reachable addresses, tailnet first', async () => {
    const r = await cli(['pair', '--json', '--addr', `127.0.0.1:${daemon.port}`], env)
    expect(r.exitCode).toBe(0)
    expect(JSON.parse(String(r.stdout)).url).toBe(daemon.url)
    const err = String(r.stderr).split('\n')
    expect(err[0]).toBe(`warning: the code points at ${daemon.url}, a loopback address: a phone cannot reach it.`)
    const addrs = reachableAddresses()
    if (addrs.length) {
      expect(err[1]).toBe('Listen on an address the phone can reach, then pair again:')
      for (const [i, a] of addrs.entries())
        expect(err[2 + i]).toMatch(
          new RegExp(`^  ${a.address.replace(/[.[\]]/g, '\\$&')} +${a.kind} +npx bridge serve --addr \\[?${a.address.replace(/\./g, '\\.')}\\]?:${daemon.port}$`),
        )
    }
    expect(String(r.stderr)).toContain(
      'Or set transport.public_url (BRIDGE_PUBLIC_URL) to a URL that reaches this bridge (e.g. from `tailscale serve`), or pass `npx bridge pair --url <url>`.',
    )
  })

  it('--url puts another URL in the code, without the warning', async () => {
    const r = await cli(['pair', '--json', '--url', 'https://box.tail1234.ts.net/', '--addr', `127.0.0.1:${daemon.port}`], env)
    expect(r.exitCode).toBe(0)
    expect(String(r.stderr)).toBe('')
    const { url, code } = JSON.parse(String(r.stdout))
    expect(url).toBe('https://box.tail1234.ts.net')
    const res = await fetch(`${daemon.url}/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, device_name: 'phone' }) })
    expect(res.status).toBe(200)
  })

  it('a bad --url is one line', async () => {
    expectOneLineError(await cli(['pair', '--url', 'ftp://x', '--addr', `127.0.0.1:${daemon.port}`], env), 'bad --url "ftp://x": want an http:// or https:// URL')
  })

  it('finds the data dir of the bridge at the address when its own config is missing (beside the demo)', async () => {
    const elsewhere = { ...env, HOME: join(box.root, 'other-home'), BRIDGE_DIR: '' }
    mkdirSync(elsewhere.HOME!, { recursive: true })
    const r = await cli(['pair', '--json', '--addr', `127.0.0.1:${daemon.port}`], elsewhere)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    expect(JSON.parse(String(r.stdout)).code).toMatch(/^[0-9a-f]{8}$/)
    expect(existsSync(join(elsewhere.HOME!, '.herdr-bridge'))).toBe(false)
  })

  it('without a run file it says which --dir to pass', async () => {
    const elsewhere = { ...env, HOME: join(box.root, 'other-home'), BRIDGE_DIR: '', XDG_RUNTIME_DIR: join(box.root, 'no-run') }
    const r = await cli(['devices', 'list', '--addr', `127.0.0.1:${daemon.port}`], elsewhere)
    expectOneLineError(r, `no config at ${join(elsewhere.HOME!, '.herdr-bridge')}/config.json; pass the --dir the bridge at ${daemon.url} was started with`)
  })
})

describe('addresses', () => {
  it('tailnet ranges come first, loopback and link-local never', () => {
    const i = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal, netmask: '', mac: '', cidr: null }) as NetworkInterfaceInfo
    const got = reachableAddresses({
      lo: [i('127.0.0.1', 'IPv4', true), i('::1', 'IPv6', true)],
      eth0: [i('192.168.1.20', 'IPv4'), i('fe80::1', 'IPv6'), i('169.254.3.3', 'IPv4')],
      tailscale0: [i('100.101.102.103', 'IPv4'), i('fd7a:115c:a1e0::1', 'IPv6')],
    })
    expect(got).toEqual([
      { address: '100.101.102.103', kind: 'tailnet' },
      { address: 'fd7a:115c:a1e0::1', kind: 'tailnet' },
      { address: '192.168.1.20', kind: 'LAN' },
    ])
    expect(isTailnet('100.63.0.1')).toBe(false)
    expect(isTailnet('100.128.0.1')).toBe(false)
  })
})

describe('shutdown', () => {
  it('removes the run file', async () => {
    const file = join(box.run, 'herdr-bridge', `${daemon.port}.json`)
    expect(await daemon.stop()).toBe(0)
    expect(existsSync(file)).toBe(false)
  })
})
