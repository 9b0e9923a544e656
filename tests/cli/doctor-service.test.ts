import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { execa } from 'execa'
import { startSim, type Sim } from '../harness/sim.ts'
import { cli, expectOneLineError, freePort, sandbox } from './helpers.ts'
import { launchdPlist, serviceSpec } from '../../cli/service.ts'
import { REPO_ROOT } from '../harness/bridge.ts'

// Each CLI call is a new node process: on a loaded 2-core machine one can take seconds.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const box = sandbox()
let sim: Sim
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  sim = await startSim({ home: box.home, sessions: ['default'] })
  env = { ...box.env, ...sim.clientEnv(), BRIDGE_HERDR_BIN: sim.herdrBin }
})

afterAll(async () => {
  await sim?.stop()
  rmSync(box.root, { recursive: true, force: true })
})

describe('bridge doctor', () => {
  it('a loopback address is the one ✗ on a healthy machine, with its fix', async () => {
    const port = await freePort()
    mkdirSync(box.dataDir, { recursive: true, mode: 0o700 })
    writeFileSync(join(box.dataDir, 'config.json'), JSON.stringify({ admin_token: 'ab'.repeat(24), server_id: 'x' }), { mode: 0o600 })
    const r = await cli(['doctor', '--addr', `127.0.0.1:${port}`], env)
    const lines = String(r.stdout).trim().split('\n')
    expect(lines[0]).toBe(`✓ Node ${process.versions.node}`)
    expect(lines[1]).toBe(`✓ herdr binary: herdr 0.8.0 (${sim.herdrBin})`)
    expect(lines[2]).toBe(`✓ herdr session default: herdr 0.8.0, protocol 20 (${sim.socketPath('default')})`)
    expect(lines[3]).toMatch(/^✓ git version /)
    expect(lines[4]).toBe(`✓ data dir ${box.dataDir} (mode 700)`)
    expect(lines[5]).toBe('✓ config and device files are private (mode 600)')
    expect(lines[6]).toBe(`✓ 127.0.0.1:${port} is free`)
    expect(lines[7]).toBe(`✗ http://127.0.0.1:${port} is a loopback address: a phone cannot reach it`)
    expect(lines[8]).toMatch(
      /^ {4}fix: (`npx bridge serve --addr \S+:\d+` \((tailnet|LAN)\), or set transport\.public_url|join a tailnet or LAN, then listen there with --addr, or set transport\.public_url)$/,
    )
    expect(lines[9]).toBe("– no FCM credentials (optional: only the mobile app's FCM alerts need them; Web Push, ntfy and webhooks do not)")
    expectOneLineError(r, '1 check failed; each ✗ above has its fix')
  })

  it('all ✓ with a public URL; ✗ with the chmod fix for an open config file', async () => {
    const port = await freePort()
    const ok = await cli(['doctor', '--addr', `127.0.0.1:${port}`], { ...env, BRIDGE_PUBLIC_URL: 'https://box.tail1234.ts.net' })
    expect(ok.exitCode, String(ok.stdout) + String(ok.stderr)).toBe(0)
    expect(String(ok.stdout)).toContain('✓ public URL https://box.tail1234.ts.net')
    expect(String(ok.stdout)).not.toContain('✗')
    chmodSync(join(box.dataDir, 'config.json'), 0o644)
    try {
      const bad = await cli(['doctor', '--addr', `127.0.0.1:${port}`], { ...env, BRIDGE_PUBLIC_URL: 'https://box.tail1234.ts.net' })
      expect(String(bad.stdout)).toContain(`✗ readable by others: config.json\n    fix: chmod 600 ${join(box.dataDir, 'config.json')}`)
      expectOneLineError(bad, '1 check failed; each ✗ above has its fix')
    } finally {
      chmodSync(join(box.dataDir, 'config.json'), 0o600)
    }
  })

  it('no herdr at all', async () => {
    const port = await freePort()
    const home = join(box.root, 'empty-home')
    const r = await cli(['doctor', '--addr', `127.0.0.1:${port}`], {
      ...box.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      BRIDGE_HERDR_BIN: join(box.root, 'no-herdr'),
      BRIDGE_PUBLIC_URL: 'https://x.example',
    })
    const out = String(r.stdout)
    expect(out).toContain(`✗ herdr binary not found (${join(box.root, 'no-herdr')}, BRIDGE_HERDR_BIN)`)
    expect(out).toContain(
      `✗ no herdr session reachable (looked at ${join(home, '.config/herdr/herdr.sock')} and ${join(home, '.config/herdr')}/sessions/*/herdr.sock)\n    fix: install herdr, start it, or set HERDR_SOCKET_PATH`,
    )
    expectOneLineError(r, '2 checks failed; each ✗ above has its fix')
  })
})

describe('bridge service', () => {
  it('install --print writes a systemd unit that systemd-analyze verify accepts', async () => {
    const dir = join(box.root, 'service data')
    const r = await cli(['service', 'install', '--print', '--addr', '127.0.0.1:9787', '--dir', dir], env)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    const unit = String(r.stdout)
    expect(unit).toContain(`ExecStart=${process.execPath} ${join(REPO_ROOT, 'cli/bin.mjs')} serve --dir "${dir}" --addr 127.0.0.1:9787\n`)
    expect(unit).toContain('Restart=on-failure\n')
    expect(unit).toMatch(/\nWantedBy=default.target$/)
    const file = join(box.root, 'herdr-bridge.service')
    writeFileSync(file, unit + '\n')
    const v = await execa('systemd-analyze', ['verify', file], { reject: false })
    expect(v.exitCode, String(v.stderr)).toBe(0)
    expect(String(v.stderr)).toBe('')
  })

  it('a bad --addr is refused before anything is written', async () => {
    expectOneLineError(await cli(['service', 'install', '--print', '--addr', 'x'], env), 'bad --addr "x": want host:port, e.g. 127.0.0.1:8787')
  })

  it('the launchd agent is a valid property list running the same command', () => {
    const spec = serviceSpec({ addr: '127.0.0.1:9787', dir: join(box.root, 'a&b'), env: { PATH: '/usr/bin:/bin', HOME: '/Users/me' } })
    const plist = launchdPlist(spec)
    const parsed = JSON.parse(execFileSync('python3', ['-c', 'import plistlib,sys,json; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))'], { input: plist }).toString())
    expect(parsed).toEqual({
      Label: 'dev.herdr-bridge',
      ProgramArguments: spec.argv,
      EnvironmentVariables: { PATH: '/usr/bin:/bin' },
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      StandardOutPath: '/Users/me/Library/Logs/herdr-bridge.log',
      StandardErrorPath: '/Users/me/Library/Logs/herdr-bridge.log',
    })
    expect(spec.argv.slice(2)).toEqual(['serve', '--dir', join(box.root, 'a&b'), '--addr', '127.0.0.1:9787'])
  })
})

/**
 * The systemd path against a stand-in systemctl and journalctl first on PATH: each records its
 * argv, one line per call, so the tests see exactly which commands ran and in what order.
 * FAKE_NO_BUS makes `systemctl --user` fail as it does without a user session; FAKE_FAIL names
 * a systemctl verb that fails with systemd's own message.
 */
describe.runIf(process.platform === 'linux')('bridge service on systemd', () => {
  const fake = join(box.root, 'fake-bin')
  const calls = join(box.root, 'service-calls.log')
  const unit = join(box.home, '.config/systemd/user/herdr-bridge.service')
  let senv: NodeJS.ProcessEnv

  beforeAll(() => {
    mkdirSync(fake, { recursive: true })
    const script = (name: string, body: string) => writeFileSync(join(fake, name), `#!/bin/sh\necho "${name} $*" >> "$FAKE_CALLS"\n${body}\n`, { mode: 0o755 })
    script(
      'systemctl',
      [
        'if [ -n "$FAKE_NO_BUS" ]; then echo "Failed to connect to bus: No medium found" >&2; exit 1; fi',
        'case "$2" in',
        '  show-environment) echo "HOME=$HOME" ;;',
        '  status) echo "* herdr-bridge.service - herdr-bridge"; exit 3 ;;',
        'esac',
        'if [ "$2" = "$FAKE_FAIL" ]; then echo "Failed to $2 unit: Unit herdr-bridge.service is masked." >&2; exit 1; fi',
        'exit 0',
      ].join('\n'),
    )
    script('journalctl', 'echo "-- No entries --"')
    senv = { ...env, PATH: `${fake}:${env.PATH}`, FAKE_CALLS: calls, HERDR_SOCKET_PATH: '/run/herdr test/herdr.sock', BRIDGE_LOG_LEVEL: '4' }
  })

  const recorded = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [])
  const reset = () => rmSync(calls, { force: true })
  const noSession =
    'no systemd user session here; print the unit with `npx bridge service install --print` and install it by hand, or run `npx bridge serve` under your own supervisor'

  it('install writes the unit, reloads, then enables and starts it', async () => {
    reset()
    const dir = join(box.root, 'svc-data')
    const r = await cli(['service', 'install', '--addr', '127.0.0.1:9788', '--dir', dir], senv)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    expect(String(r.stderr)).toBe('')
    expect(recorded()).toEqual(['systemctl --user show-environment', 'systemctl --user daemon-reload', 'systemctl --user enable --now herdr-bridge.service'])
    expect(String(r.stdout).split('\n')[0]).toBe(`wrote ${unit}`)
    expect(statSync(unit).mode & 0o777).toBe(0o600)
    const text = readFileSync(unit, 'utf8')
    expect(text).toContain(`ExecStart=${process.execPath} ${join(REPO_ROOT, 'cli/bin.mjs')} serve --dir ${dir} --addr 127.0.0.1:9788\n`)
    // The installing shell's herdr socket and BRIDGE_* settings, but not the (empty) unset ones.
    expect(text).toContain('Environment="HERDR_SOCKET_PATH=/run/herdr test/herdr.sock"\n')
    expect(text).toContain('Environment=BRIDGE_LOG_LEVEL=4\n')
    expect(text).toContain(`Environment=BRIDGE_HERDR_BIN=${sim.herdrBin}\n`)
    expect(text).not.toMatch(/BRIDGE_(ADDR|DIR|ADMIN_TOKEN)=/)
  })

  it('a reinstall over a unit someone loosened sets 0600 again', async () => {
    chmodSync(unit, 0o644)
    const r = await cli(['service', 'install', '--addr', '127.0.0.1:9788', '--dir', join(box.root, 'svc-data')], senv)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    expect(statSync(unit).mode & 0o777).toBe(0o600)
  })

  it("status passes the service manager's report and exit code through", async () => {
    reset()
    const r = await cli(['service', 'status'], senv)
    expect(r.exitCode).toBe(3)
    expect(String(r.stdout)).toBe('* herdr-bridge.service - herdr-bridge')
    expect(recorded()).toEqual(['systemctl --user show-environment', 'systemctl --user status --no-pager herdr-bridge.service'])
  })

  it("logs reads the unit's journal", async () => {
    reset()
    const r = await cli(['service', 'logs'], senv)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    expect(String(r.stdout)).toBe('-- No entries --')
    const f = await cli(['service', 'logs', '-f', '-n', '20'], senv)
    expect(f.exitCode, String(f.stderr)).toBe(0)
    expect(recorded()).toEqual([
      'systemctl --user show-environment',
      'journalctl --user -u herdr-bridge.service -n 100 --no-pager',
      'systemctl --user show-environment',
      'journalctl --user -u herdr-bridge.service -n 20 --no-pager -f',
    ])
    expectOneLineError(await cli(['service', 'logs', '-n', 'all'], senv), 'bad --lines "all": want a number')
  })

  it('without a user session every subcommand says so in one line and changes nothing', async () => {
    const before = readFileSync(unit, 'utf8')
    reset()
    for (const args of [['install'], ['uninstall'], ['status'], ['logs']]) {
      const r = await cli(['service', ...args], { ...senv, FAKE_NO_BUS: '1', BRIDGE_LOG_LEVEL: '5' })
      expectOneLineError(r, noSession)
      expect(String(r.stdout)).toBe('')
    }
    expect(recorded()).toEqual(Array(4).fill('systemctl --user show-environment'))
    expect(readFileSync(unit, 'utf8')).toBe(before)
  })

  it('uninstall stops, disables and removes the unit, then reloads', async () => {
    reset()
    const r = await cli(['service', 'uninstall'], senv)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    expect(String(r.stdout).trim()).toBe(`removed ${unit}`)
    expect(existsSync(unit)).toBe(false)
    expect(recorded()).toEqual(['systemctl --user show-environment', 'systemctl --user disable --now herdr-bridge.service', 'systemctl --user daemon-reload'])
    expectOneLineError(await cli(['service', 'uninstall'], senv), `no service installed (${unit} does not exist)`)
    expectOneLineError(await cli(['service', 'status'], senv), 'no service installed; install it with `npx bridge service install`')
  })

  it('install on a machine with no user session writes nothing', async () => {
    reset()
    expectOneLineError(await cli(['service', 'install'], { ...senv, FAKE_NO_BUS: '1' }), noSession)
    expect(existsSync(unit)).toBe(false)
    const missing = await cli(['service', 'install'], { ...senv, PATH: join(box.root, 'empty-path') })
    expectOneLineError(missing, noSession)
    expect(existsSync(unit)).toBe(false)
  })

  it('a failed enable takes the unit away again and says why in one line', async () => {
    reset()
    const r = await cli(['service', 'install'], { ...senv, FAKE_FAIL: 'enable' })
    expectOneLineError(r, '`systemctl --user enable --now herdr-bridge.service` failed (exit 1): Failed to enable unit: Unit herdr-bridge.service is masked.')
    expect(existsSync(unit)).toBe(false)
    expect(recorded()).toEqual([
      'systemctl --user show-environment',
      'systemctl --user daemon-reload',
      'systemctl --user enable --now herdr-bridge.service',
      'systemctl --user daemon-reload',
    ])
  })
})
