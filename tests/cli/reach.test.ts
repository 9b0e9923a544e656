import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { X509Certificate } from 'node:crypto'
import type { LookupFunction } from 'node:net'
import { Agent, fetch, WebSocket, type Dispatcher } from 'undici'
import { startSim, type Sim } from '../harness/sim.ts'
import { until } from '../harness/wait.ts'
import { BIN, cli, freePort, sandbox, startDaemon, type Daemon } from './helpers.ts'

// Each CLI call is a new node process: on a loaded 2-core machine one can take seconds.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

/**
 * The README's "Reach it from your phone" recipes, end to end: a daemon on a second --addr, a
 * tailnet name (`tailscale serve`) and a tunnel name (cloudflared) through a real reverse proxy
 * that forwards the original Host (Debian's caddy with reverse_proxy, on loopback), and HTTPS of
 * the bridge's own with a certificate made here. Each pairs a device with the code `bridge pair`
 * printed and opens /events through the path a phone would take.
 */

const TAILNET = 'vm.tail1234.ts.net'
const TUNNEL = 'hungry-otter-42.trycloudflare.com'

const box = sandbox('bridge-reach-')
let sim: Sim
let env: NodeJS.ProcessEnv
let daemon: Daemon
let caddy: ChildProcess | null = null
let front: number

/** Every name resolves to loopback, as the tailnet's or the tunnel's DNS would resolve to the proxy. */
const loopback: LookupFunction = (_host, opts, cb) => {
  if (opts.all) cb(null, [{ address: '127.0.0.1', family: 4 }])
  else cb(null, '127.0.0.1', 4)
}
const agent = (ca?: Buffer): Dispatcher => new Agent({ connect: { lookup: loopback, ...(ca ? { ca } : {}) } })

/** The code from `bridge pair`'s default output: the link line `<url>/#/pair?code=…`. */
function codeFromPairOutput(stdout: string, url: string): string {
  const line = stdout.split('\n').find((l) => l.trim().startsWith(`${url}/#/pair?code=`))
  expect(line, stdout).toBeDefined()
  return new URL(line!.trim()).hash.split('code=')[1]
}

/** Pairs through `base` with `code`, then reads the first /events frame through the same path. */
async function pairAndWatch(base: string, code: string, dispatcher: Dispatcher): Promise<{ bearer: string; first: unknown }> {
  const res = await fetch(`${base}/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, device_name: 'phone' }),
    dispatcher,
  })
  expect(res.status, await res.clone().text()).toBe(200)
  const { bearer } = (await res.json()) as { bearer: string }
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/events?token=${bearer}`, { dispatcher })
  const first = await new Promise<unknown>((resolve, reject) => {
    ws.addEventListener('message', (e) => resolve(JSON.parse(String(e.data))))
    ws.addEventListener('error', () => reject(new Error(`/events through ${base} failed`)))
    ws.addEventListener('close', (e) => reject(new Error(`/events through ${base} closed ${e.code} ${e.reason}`)))
  })
  ws.close()
  return { bearer, first }
}

/** caddy on loopback forwarding every request, with its original Host, to the daemon (what `tailscale serve` and cloudflared do). */
async function startCaddy(port: number, upstream: number): Promise<ChildProcess> {
  const dir = join(box.root, 'caddy')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'Caddyfile')
  writeFileSync(
    file,
    [
      '{',
      '\tadmin off',
      '\tauto_https off',
      `\tstorage file_system ${join(dir, 'data')}`,
      '}',
      `http://:${port} {`,
      '\tbind 127.0.0.1',
      `\treverse_proxy 127.0.0.1:${upstream}`,
      '}',
      '',
    ].join('\n'),
  )
  const proc = spawn('caddy', ['run', '--config', file, '--adapter', 'caddyfile'], {
    env: { ...env, XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config') },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let log = ''
  proc.stderr!.on('data', (d) => (log += d))
  await until(async () => {
    if (proc.exitCode !== null) throw new Error(`caddy exited ${proc.exitCode}: ${log}`)
    try {
      await (await fetch(`http://127.0.0.1:${port}/healthz`)).text()
      return true
    } catch {
      return false
    }
  }, `caddy on ${port}`)
  return proc
}

beforeAll(async () => {
  sim = await startSim({ home: box.home })
  env = { ...box.env, ...sim.clientEnv(), BRIDGE_HERDR_BIN: sim.herdrBin }
  // Any port but the default: the data dir alone must lead the CLI to it.
  daemon = await startDaemon(env)
  front = await freePort()
  caddy = await startCaddy(front, daemon.port)
})

afterAll(async () => {
  caddy?.kill('SIGTERM')
  await daemon?.stop()
  await sim?.stop()
  rmSync(box.root, { recursive: true, force: true })
})

describe('a daemon on a second --addr', () => {
  it('pair, status and devices find it from the data dir alone, and the printed code pairs a phone that watches /events', async () => {
    expect(daemon.port).not.toBe(8787)
    const r = await cli(['pair'], env)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    const code = codeFromPairOutput(String(r.stdout), daemon.url)
    const { first } = await pairAndWatch(daemon.url, code, agent())
    expect(first).toHaveProperty('type')
    const status = await cli(['status', '--json'], env)
    expect(JSON.parse(String(status.stdout))).toMatchObject({ running: true, url: daemon.url, data_dir: box.dataDir, devices: 1 })
    // Every bridge of this user, from the run files.
    expect(JSON.parse(String(status.stdout)).bridges).toEqual([{ url: daemon.url, pid: daemon.proc.pid, data_dir: box.dataDir }])
    const devices = await cli(['devices', 'list', '--json'], env)
    expect(JSON.parse(String(devices.stdout)).map((d: { name: string }) => d.name)).toEqual(['phone'])
  })

  it('doctor says which port holder is this bridge: found from the data dir, or from --addr alone', async () => {
    const portLine = (out: unknown) =>
      String(out)
        .split('\n')
        .find((l) => l.includes(`127.0.0.1:${daemon.port} is`))
    expect(portLine((await cli(['doctor'], env)).stdout)).toBe(`✓ 127.0.0.1:${daemon.port} is held by this bridge (pid ${daemon.proc.pid}, running)`)
    // --addr of a running bridge, with the default data dir elsewhere: that bridge is checked, not failed.
    const elsewhere = { ...env, BRIDGE_DIR: join(box.root, 'unused-data') }
    expect(portLine((await cli(['doctor', '--addr', `127.0.0.1:${daemon.port}`], elsewhere)).stdout)).toBe(
      `✓ 127.0.0.1:${daemon.port} is held by the bridge of data dir ${box.dataDir} (pid ${daemon.proc.pid}, running); this checklist is of that data dir`,
    )
  })

  it('notify test takes --dir like the others', async () => {
    const r = await cli(['notify', 'test', '--dir', box.dataDir, '--channel', 'webhook'], env)
    expect(String(r.stdout)).toBe('webhook  not sent: not configured: set BRIDGE_WEBHOOK_URL (or notify.webhooks)')
  })

  it('names what it tried when no bridge runs for the data dir', async () => {
    const other = join(box.root, 'other-data')
    const r = await cli(['status', '--dir', other], env)
    expect(String(r.stderr).trim()).toBe(
      `bridge: the bridge is not running at http://127.0.0.1:8787 (tried the default address; no running bridge uses data dir ${other}); start it with \`npx bridge serve\``,
    )
  })
})

describe('through a proxy that forwards the original Host', () => {
  for (const [recipe, host] of [
    ['tailscale serve', TAILNET],
    ['a tunnel', TUNNEL],
  ] as const) {
    it(`${recipe}: refused (421, naming the settings) until \`bridge pair --url https://${host}\`, then pairs and streams /events`, async () => {
      const base = `http://${host}:${front}`
      const refused = await fetch(`${base}/healthz`, { dispatcher: agent() })
      expect(refused.status).toBe(421)
      expect(await refused.text()).toBe(
        `host ${host} is not served here; add it to transport.allowed_hosts or BRIDGE_ALLOWED_HOSTS (a name or *.suffix), set transport.public_url to its URL, or pair once with \`bridge pair --url https://${host}\``,
      )
      const r = await cli(['pair', '--url', `https://${host}`], env)
      expect(r.exitCode, String(r.stderr)).toBe(0)
      expect(String(r.stderr)).toBe('')
      const code = codeFromPairOutput(String(r.stdout), `https://${host}`)
      // Kept in the config: the running bridge serves that name from now on.
      expect(JSON.parse(readFileSync(join(box.dataDir, 'config.json'), 'utf8')).transport.pair_urls).toContain(`https://${host}`)
      const { first } = await pairAndWatch(base, code, agent())
      expect(first).toHaveProperty('type')
    })
  }
})

describe('HTTPS of its own', () => {
  const tls = sandbox('bridge-tls-')
  let proc: ChildProcess
  let port: number
  let out = ''
  const cert = join(tls.root, 'cert.pem')
  const key = join(tls.root, 'key.pem')
  /** A certificate for the tailnet name, as `tailscale cert` makes (here self-signed by openssl). */
  const makePair = () =>
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${TAILNET}`,
        '-addext',
        `subjectAltName=DNS:${TAILNET}`,
        '-keyout',
        key,
        '-out',
        cert,
      ],
      {
        stdio: 'ignore',
      },
    )

  beforeAll(async () => {
    makePair()
    port = await freePort()
    proc = spawn(process.execPath, [BIN, 'serve', '--addr', `127.0.0.1:${port}`, '--tls-cert', cert, '--tls-key', key], {
      env: { ...env, BRIDGE_DIR: tls.dataDir, XDG_RUNTIME_DIR: tls.run },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    proc.stdout!.on('data', (d) => (out += d))
    proc.stderr!.on('data', (d) => (out += d))
    await until(() => {
      if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}: ${out}`)
      return out.includes(`listening on https://127.0.0.1:${port}`)
    }, 'the HTTPS listener')
  })
  afterAll(async () => {
    if (proc?.exitCode === null) {
      proc.kill('SIGTERM')
      await new Promise((r) => proc.once('exit', r))
    }
    rmSync(tls.root, { recursive: true, force: true })
  })
  const tlsEnv = () => ({ ...env, BRIDGE_DIR: tls.dataDir, XDG_RUNTIME_DIR: tls.run })

  it('serves HTTPS and WSS with the pair; the CLI reaches it on loopback by the certificate its run file names', async () => {
    const url = `https://${TAILNET}:${port}`
    const r = await cli(['pair', '--url', url], tlsEnv())
    expect(r.exitCode, String(r.stderr)).toBe(0)
    const code = codeFromPairOutput(String(r.stdout), url)
    const { first } = await pairAndWatch(url, code, agent(readFileSync(cert)))
    expect(first).toHaveProperty('type')
    const s = await cli(['status', '--json'], tlsEnv())
    expect(JSON.parse(String(s.stdout))).toMatchObject({ running: true, url: `https://127.0.0.1:${port}`, devices: 1 })
  })

  it('plain HTTP on that port is no way in', async () => {
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow()
  })

  it('SIGHUP reloads a renewed pair: new connections get the new certificate, and the CLI follows', async () => {
    const before = new X509Certificate(readFileSync(cert)).fingerprint256
    makePair()
    const after = new X509Certificate(readFileSync(cert)).fingerprint256
    expect(after).not.toBe(before)
    proc.kill('SIGHUP')
    await until(() => out.includes(`SIGHUP: reloaded the TLS pair (SHA-256 ${after})`), 'the reload line')
    const res = await fetch(`https://${TAILNET}:${port}/healthz`, { dispatcher: agent(readFileSync(cert)) })
    expect(res.status).toBe(200)
    const s = await cli(['status', '--json'], tlsEnv())
    expect(JSON.parse(String(s.stdout))).toMatchObject({ running: true, devices: 1 })
  })

  it('a key that is not the certificate’s is refused in one line at start', async () => {
    const other = join(tls.root, 'other-key.pem')
    execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', other], { stdio: 'ignore' })
    const r = await cli(['serve', '--addr', `127.0.0.1:${await freePort()}`, '--tls-cert', cert, '--tls-key', other], { ...env, BRIDGE_DIR: join(tls.root, 'd3') })
    expect(r.exitCode).toBe(1)
    expect(String(r.stderr).trim().split('\n').at(-1)).toBe(`bridge: the TLS key ${other} is not the key of the certificate ${cert}`)
  })
})
