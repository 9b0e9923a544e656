import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer, type Server } from 'node:net'
import { cli, expectOneLineError, freePort, sandbox, startDaemon, type Daemon } from './helpers.ts'

// Each CLI call is a new node process: on a loaded 2-core machine one can take seconds.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

/** Every CLI failure is one line on stderr, a non-zero exit and no stack (issue: "one line per error"). */

const box = sandbox()
let daemon: Daemon
let addr: string

beforeAll(async () => {
  daemon = await startDaemon(box.env)
  addr = `127.0.0.1:${daemon.port}`
})

afterAll(async () => {
  await daemon?.stop()
  rmSync(box.root, { recursive: true, force: true })
})

describe('the daemon is not running', () => {
  for (const args of [['pair'], ['devices', 'list'], ['status']]) {
    it(`bridge ${args.join(' ')}`, async () => {
      const port = await freePort()
      const r = await cli([...args, '--addr', `127.0.0.1:${port}`], box.env)
      expectOneLineError(r, `the bridge is not running at http://127.0.0.1:${port} (tried --addr); start it with \`npx bridge serve --addr 127.0.0.1:${port}\``)
    })
  }

  it('names the address from BRIDGE_ADDR without a flag to repeat', async () => {
    const port = await freePort()
    const r = await cli(['status'], { ...box.env, BRIDGE_ADDR: `127.0.0.1:${port}` })
    expectOneLineError(r, `the bridge is not running at http://127.0.0.1:${port} (tried BRIDGE_ADDR); start it with \`npx bridge serve\``)
  })

  it('status --json says so as JSON, still exiting non-zero', async () => {
    const port = await freePort()
    const r = await cli(['status', '--json', '--addr', `127.0.0.1:${port}`], box.env)
    expect(r.exitCode).toBe(1)
    expect(JSON.parse(String(r.stdout))).toEqual({ running: false, url: `http://127.0.0.1:${port}`, data_dir: box.dataDir })
  })
})

describe('serve', () => {
  it('a busy port', async () => {
    const srv: Server = await new Promise((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => resolve(s))
    })
    const port = (srv.address() as { port: number }).port
    try {
      const r = await cli(['serve', '--addr', `127.0.0.1:${port}`], box.env)
      expectOneLineError(r, `127.0.0.1:${port} is already in use — is another bridge running? (\`npx bridge status\`) Choose another with --addr`)
      expect(String(r.stdout)).toBe('')
      // A first run on a busy port: no plugin started, nothing written.
      const fresh = join(box.root, 'fresh-data')
      const first = await cli(['serve', '--dir', fresh], { ...box.env, BRIDGE_ADDR: `127.0.0.1:${port}` })
      expectOneLineError(first, `127.0.0.1:${port} is already in use — is another bridge running? (\`npx bridge status\`) Choose another with --addr`)
      expect(String(first.stdout)).toBe('')
      expect(existsSync(fresh)).toBe(false)
    } finally {
      srv.close()
    }
  })

  it('a bad --addr', async () => {
    expectOneLineError(await cli(['serve', '--addr', 'localhost'], box.env), 'bad --addr "localhost": want host:port, e.g. 127.0.0.1:8787')
    expectOneLineError(await cli(['serve', '--addr', '127.0.0.1:99999'], box.env), 'bad --addr "127.0.0.1:99999": the port must be 1-65535')
    expectOneLineError(await cli(['pair', '--addr', 'nope'], box.env), 'bad --addr "nope": want host:port, e.g. 127.0.0.1:8787')
  })

  it('relay mode, from the environment and from config.json', async () => {
    expectOneLineError(
      await cli(['serve'], { ...box.env, BRIDGE_MODE: 'relay' }),
      'BRIDGE_MODE is "relay", and this build runs only the direct transport; set it to "direct" and start again',
    )
    const dir = join(box.root, 'relay')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ transport: { mode: 'relay' } }))
    expectOneLineError(
      await cli(['serve', '--dir', dir], box.env),
      `transport.mode is "relay" in ${join(dir, 'config.json')}, and this build runs only the direct transport; set it to "direct" and start again`,
    )
  })

  it('a config file that is not JSON', async () => {
    const dir = join(box.root, 'broken')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'config.json'), '{nope')
    expectOneLineError(
      await cli(['serve', '--dir', dir], box.env),
      new RegExp(`^bridge: config file ${join(dir, 'config.json')} is not valid JSON .*; fix or move it away, it was left untouched$`),
    )
  })
})

describe('against a running daemon', () => {
  it('an admin token the daemon refuses', async () => {
    const other = join(box.root, 'other')
    mkdirSync(other, { recursive: true })
    writeFileSync(join(other, 'config.json'), JSON.stringify({ admin_token: 'ab'.repeat(24), server_id: 'x' }))
    // Another runtime dir: no run file to fall back on.
    const env = { ...box.env, XDG_RUNTIME_DIR: join(box.root, 'no-run') }
    const r = await cli(['devices', 'list', '--dir', other, '--addr', addr], env)
    expectOneLineError(r, `the admin token in ${join(other, 'config.json')} is not the one the bridge at ${daemon.url} uses; was it started with another --dir?`)
  })

  it('the refusal names the right --dir when the bridge left a run file it cannot use', async () => {
    const other = join(box.root, 'other2')
    mkdirSync(other, { recursive: true })
    writeFileSync(join(other, 'config.json'), JSON.stringify({ admin_token: 'cd'.repeat(24), server_id: 'x' }))
    const run = join(box.root, 'run-elsewhere', 'herdr-bridge')
    mkdirSync(run, { recursive: true, mode: 0o700 })
    writeFileSync(join(run, `${daemon.port}.json`), JSON.stringify({ pid: daemon.proc.pid, url: daemon.url, data_dir: join(box.root, 'unreadable') }), { mode: 0o600 })
    const r = await cli(['devices', 'list', '--dir', other, '--addr', addr], { ...box.env, XDG_RUNTIME_DIR: join(box.root, 'run-elsewhere') })
    expectOneLineError(
      r,
      `the admin token in ${join(other, 'config.json')} is not the one the bridge at ${daemon.url} uses; was it started with another --dir? (it runs with --dir ${join(box.root, 'unreadable')})`,
    )
  })

  it('an unknown device id', async () => {
    const r = await cli(['devices', 'revoke', 'nosuchid', '--addr', addr], box.env)
    expectOneLineError(r, 'no device nosuchid; list paired devices with `npx bridge devices list`')
  })

  it('a missing device id', async () => {
    const r = await cli(['devices', 'revoke', '--addr', addr], box.env)
    expectOneLineError(r, 'Missing required positional argument: ID; see `npx bridge devices revoke --help`')
    expect(r.exitCode).toBe(2)
  })
})

describe('push', () => {
  it('missing push credentials', async () => {
    const r = await cli(['push', 'status'], box.env)
    expectOneLineError(
      r,
      `push: no credentials found; save a service-account key as ${join(box.dataDir, 'serviceAccount.json')} or run \`npx bridge push login --project <project-id>\``,
    )
    expect(String(r.stdout)).toContain('No FCM credentials found: alerts to the mobile app (FCM) are only logged; Web Push, ntfy and webhooks need none. Searched, in order:')
  })

  it('a data dir that was never initialised', async () => {
    const dir = join(box.root, 'never')
    expectOneLineError(
      await cli(['push', 'status', '--dir', dir], box.env),
      `no config at ${join(dir, 'config.json')}: the data dir is not initialised; \`npx bridge serve\` creates it, or pass your bridge's --dir`,
    )
  })

  it('a failed gcloud login ends with what to do', async () => {
    const bin = join(box.root, 'gcloud-bin')
    mkdirSync(bin, { recursive: true })
    writeFileSync(join(bin, 'gcloud'), '#!/bin/sh\necho "ERROR: (gcloud.auth.application-default.login) There was a problem with web authentication." >&2\nexit 1\n')
    chmodSync(join(bin, 'gcloud'), 0o755)
    const dir = join(box.root, 'login')
    const r = await cli(['push', 'login', '--project', 'my-proj-1', '--dir', dir], { ...box.env, PATH: `${bin}:${box.env.PATH}` })
    expect(r.exitCode).toBe(1)
    expect(String(r.stderr).trim().split('\n')).toEqual([
      'ERROR: (gcloud.auth.application-default.login) There was a problem with web authentication.',
      `bridge: gcloud auth application-default login failed (exit 1; its messages are above); run \`npx bridge push login --project my-proj-1\` again, or save a service-account key as ${join(dir, 'serviceAccount.json')} and check it with \`npx bridge push status\``,
    ])
  })
})

describe('usage mistakes exit 2', () => {
  const usage = (r: Awaited<ReturnType<typeof cli>>, line: string) => {
    expectOneLineError(r, line)
    expect(r.exitCode).toBe(2)
    expect(String(r.stdout)).toBe('')
  }

  it('an unknown command', async () => {
    usage(await cli(['serv'], box.env), 'unknown command "serv"; see `npx bridge --help`')
    usage(await cli(['devices', 'rm', 'x'], box.env), 'unknown command "devices rm"; see `npx bridge devices --help`')
  })

  it('an unknown option, also before any command', async () => {
    usage(await cli(['serve', '--adr', '127.0.0.1:1'], box.env), 'unknown option --adr for `bridge serve`; see `npx bridge serve --help`')
    usage(await cli(['-x'], box.env), 'unknown option -x for `bridge`; see `npx bridge --help`')
    usage(await cli(['devices', '--json'], box.env), 'unknown option --json for `bridge devices`; see `npx bridge devices --help`')
  })

  it('--url and --addr naming different bridges', async () => {
    usage(
      await cli(['status', '--url', 'http://127.0.0.1:1', '--addr', '127.0.0.1:2'], box.env),
      '--url http://127.0.0.1:1 and --addr 127.0.0.1:2 name different bridges; pass one of them',
    )
    const same = await cli(['status', '--json', '--url', daemon.url, '--addr', addr], box.env)
    expect(JSON.parse(String(same.stdout))).toMatchObject({ running: true, url: daemon.url })
  })

  it('help piped to a file or another program has no colour codes', async () => {
    for (const args of [[], ['--help'], ['pair', '--help']]) {
      const r = await cli(args, box.env)
      expect(r.exitCode).toBe(0)
      expect(String(r.stdout)).toContain('USAGE')
      expect(String(r.stdout)).not.toContain('\x1b[')
    }
    expect(String((await cli(['pair', '--help'], box.env)).stdout)).toMatch(/--url.*does not choose which daemon is asked: that is --addr/)
  })

  it('--help and --version exit 0', async () => {
    const help = await cli(['pair', '--help'], box.env)
    expect(help.exitCode).toBe(0)
    expect(String(help.stdout)).toContain('--url')
    const v = await cli(['--version'], box.env)
    expect(String(v.stdout).trim()).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version)
  })
})

describe('pair --url', () => {
  it('is the URL in the code, never where pair looks for the daemon', async () => {
    const port = await freePort()
    const r = await cli(['pair', '--url', `http://127.0.0.1:${port}`], { ...box.env, BRIDGE_ADDR: `127.0.0.1:${await freePort()}` })
    expectOneLineError(
      r,
      /^bridge: the bridge is not running at http:\/\/127\.0\.0\.1:\d+ \(tried BRIDGE_ADDR\); start it with `npx bridge serve`; --url only sets the URL in the code: pass the daemon's --addr$/,
    )
    expect(String(r.stderr)).not.toContain(`:${port};`)
    const ok = await cli(['pair', '--json', '--url', 'https://phone.example'], { ...box.env, BRIDGE_ADDR: addr })
    expect(ok.exitCode, String(ok.stderr)).toBe(0)
    expect(JSON.parse(String(ok.stdout)).url).toBe('https://phone.example')
  })
})

describe('doctor and the port', () => {
  const portLine = async (extra: string[], env: NodeJS.ProcessEnv) => {
    const r = await cli(['doctor', '--addr', addr, ...extra], env)
    const lines = String(r.stdout).split('\n')
    const i = lines.findIndex((l) => l.includes(`${addr} is`))
    return lines.slice(i, i + 2).join('\n')
  }

  it('knows its own bridge from the run file', async () => {
    expect(await portLine([], box.env)).toMatch(new RegExp(`^✓ ${addr} is held by this bridge \\(pid ${daemon.proc.pid}, running\\)`))
  })

  it('names the data dir of another bridge from its run file', async () => {
    const other = join(box.root, 'doctor-other')
    expect(await portLine(['--dir', other], box.env)).toBe(
      `✗ ${addr} is held by another bridge (pid ${daemon.proc.pid}, data dir ${box.dataDir})\n    fix: to check that one: \`npx bridge doctor --dir ${box.dataDir}\`; else choose another address with --addr`,
    )
  })

  it('without a run file or a config.json, says the data dir is not initialised', async () => {
    const other = join(box.root, 'doctor-other')
    expect(await portLine(['--dir', other], { ...box.env, XDG_RUNTIME_DIR: join(box.root, 'no-run') })).toBe(
      `✗ ${addr} is taken, and data dir ${other} is not initialised (no config.json), so nothing tells whether the program there is its bridge\n    fix: pass the --dir of the bridge running there, or choose another address with --addr`,
    )
  })
})

describe('BRIDGE_DEBUG=1', () => {
  it('adds the stack after the line', async () => {
    const port = await freePort()
    const r = await cli(['status', '--addr', `127.0.0.1:${port}`], { ...box.env, BRIDGE_DEBUG: '1' })
    expect(r.exitCode).toBe(1)
    const lines = String(r.stderr).trim().split('\n')
    expect(lines[0]).toBe(`bridge: the bridge is not running at http://127.0.0.1:${port} (tried --addr); start it with \`npx bridge serve --addr 127.0.0.1:${port}\``)
    expect(lines.slice(1).some((l) => /^\s+at /.test(l))).toBe(true)
  })
})
