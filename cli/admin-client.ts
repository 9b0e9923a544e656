import { ConfigMissing, DEFAULT_ADDR, loadConfig, resolveDataDir, splitAddr, type BridgeConfig } from '../core/config.ts'
import type { TLSSocket } from 'node:tls'
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher, type RequestInit as UndiciRequestInit } from 'undici'
import { CliError, UsageError, bridgeCommand } from './errors.ts'
import { readRunFile, runFileOfDir, type RunFile } from './runfile.ts'

export { CliError }

export { targetArgs } from './args.ts'

export interface TargetOptions {
  dir?: string
  url?: string
  addr?: string
  env?: NodeJS.ProcessEnv
}

/** Which daemon a command talks to, and the data dir it read. */
export interface Target {
  base: string
  port: number
  dataDir: string
  /** Null when `<dataDir>/config.json` does not exist. */
  config: BridgeConfig | null
  /** True when the address came from --url/--addr rather than config or env. */
  explicit: boolean
  /** Where the address came from, for the line that says the bridge is not there. */
  from: string
  /** Pins the certificate of a bridge serving HTTPS itself (from its run file); else undefined. */
  dispatcher?: Dispatcher
}

export function resolveTarget(opts: TargetOptions): Target {
  const env = opts.env ?? process.env
  const dataDir = resolveDataDir(opts.dir, env)
  const config = readConfig(dataDir, env)
  let base: string
  let from: string
  let run: RunFile | null = null
  if (opts.url) {
    base = parseUrlFlag(opts.url)
    from = '--url'
    if (opts.addr && new URL(baseOfAddr(opts.addr)).host !== new URL(base).host)
      throw new UsageError(`--url ${opts.url} and --addr ${opts.addr} name different bridges; pass one of them`)
  } else if (opts.addr || env.BRIDGE_ADDR) {
    from = opts.addr ? '--addr' : 'BRIDGE_ADDR'
    base = baseOfAddr((opts.addr || env.BRIDGE_ADDR)!, from)
  } else if ((run = runFileOfDir(dataDir, env))) {
    // `serve --addr` is not saved in the config: the run file of this data dir's bridge says where it listens.
    base = baseOfRunFile(run)
    from = `the run file of the bridge of data dir ${dataDir}`
  } else {
    base = baseOfAddr(config?.transport.addr ?? DEFAULT_ADDR, 'transport.addr')
    from = `${config ? `transport.addr in ${config.config_path}` : 'the default address'}; no running bridge uses data dir ${dataDir}`
  }
  const u = new URL(base)
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80))
  // A bridge serving HTTPS on loopback: its certificate names the public host, so pin it instead.
  run ??= u.protocol === 'http:' && isLoopback(u.hostname) ? readRunFile(port, env) : null
  let dispatcher: Dispatcher | undefined
  if (run?.tls_fingerprint && run.url.startsWith('https:') && isLoopback(u.hostname)) {
    if (u.protocol === 'http:') base = base.replace(/^http:/, 'https:')
    dispatcher = pinnedAgent(run.tls_fingerprint)
  }
  return { base, port, dataDir, config, explicit: !!(opts.url || opts.addr), from, dispatcher }
}

/** The loopback base URL of a bridge from its run file (a wildcard listener answers on loopback). */
export function baseOfRunFile(run: RunFile): string {
  const u = new URL(run.url)
  return baseOfAddr(u.host).replace(/^http:/, u.protocol)
}

const isLoopback = (h: string) => /^127\./.test(h) || h === '[::1]' || h === 'localhost'

/** TLS to a loopback bridge trusting exactly the certificate its run file names. */
function pinnedAgent(fingerprint: string): Dispatcher {
  // No session resumption: a resumed TLS session presents no certificate to compare.
  const connect = buildConnector({ rejectUnauthorized: false, maxCachedSessions: 0 })
  return new Agent({
    connect(opts, cb) {
      connect(opts, (err, socket) => {
        if (err || !socket) return cb(err ?? new Error('no socket'), null)
        if ((socket as TLSSocket).getPeerCertificate?.().fingerprint256 !== fingerprint) {
          socket.destroy()
          return cb(new Error('the certificate is not the one the run file names'), null)
        }
        cb(null, socket)
      })
    },
  })
}

/** fetch through the target's pinned TLS agent when it has one. */
export function targetFetch(target: Pick<Target, 'dispatcher'>, url: string, init: RequestInit = {}): Promise<Response> {
  if (!target.dispatcher) return fetch(url, init)
  return undiciFetch(url, { ...(init as UndiciRequestInit), dispatcher: target.dispatcher }) as unknown as Promise<Response>
}

/** A config that does not exist is null; a broken one is a one-line error naming the file. */
export function readConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): BridgeConfig | null {
  try {
    return loadConfig({ dir: dataDir, env, create: false })
  } catch (err) {
    if (err instanceof ConfigMissing) return null
    throw new CliError((err as Error).message)
  }
}

/** The loopback URL a client uses for a listen address (a wildcard listens on loopback too). */
export function baseOfAddr(addr: string, from = '--addr'): string {
  let host: string
  let port: number
  try {
    ;({ host, port } = splitAddr(addr))
  } catch {
    throw new CliError(`bad ${from} ${JSON.stringify(addr)}: want host:port, e.g. 127.0.0.1:8787`)
  }
  if (!(port > 0 && port < 65536)) throw new CliError(`bad ${from} ${JSON.stringify(addr)}: the port must be 1-65535`)
  const local = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host
  return `http://${local.includes(':') ? `[${local}]` : local}:${port}`
}

function parseUrlFlag(raw: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new CliError(`bad --url ${JSON.stringify(raw)}: want http://host:port or https://host`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CliError(`bad --url ${JSON.stringify(raw)}: want an http:// or https:// URL`)
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`
}

/** The running daemon's admin API, as the CLI reaches it. */
export function adminClient(opts: TargetOptions) {
  const env = opts.env ?? process.env
  const target = resolveTarget(opts)
  const { base } = target
  const notRunning = () =>
    new CliError(
      `the bridge is not running at ${base} (tried ${target.from}); start it with \`${bridgeCommand(`serve${target.explicit ? ` --addr ${new URL(base).host}` : ''}`)}\``,
    )

  /** The token to use and where it came from; falls back to the run file of the bridge there. */
  let auth: { token: string; from: string; dir: string } | null = target.config
    ? { token: target.config.admin_token, from: env.BRIDGE_ADMIN_TOKEN ? 'BRIDGE_ADMIN_TOKEN' : `${target.config.config_path}`, dir: target.dataDir }
    : env.BRIDGE_ADMIN_TOKEN
      ? { token: env.BRIDGE_ADMIN_TOKEN, from: 'BRIDGE_ADMIN_TOKEN', dir: target.dataDir }
      : null

  /** The data dir of the bridge listening there, when it left a run file and we can read its config. */
  const fromRunFile = (): { auth: typeof auth; dir?: string } => {
    const rf = readRunFile(target.port, env)
    if (!rf || rf.data_dir === auth?.dir) return { auth: null }
    try {
      const c = loadConfig({ dir: rf.data_dir, env: { ...env, BRIDGE_ADMIN_TOKEN: '' }, create: false })
      return { auth: { token: c.admin_token, from: c.config_path, dir: rf.data_dir }, dir: rf.data_dir }
    } catch {
      return { auth: null, dir: rf.data_dir }
    }
  }

  const send = async (token: string, method: string, path: string, body?: unknown): Promise<Response> => {
    try {
      return await targetFetch(target, base + path, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      })
    } catch {
      throw notRunning()
    }
  }

  return {
    target,
    base,
    notRunning,
    get dataDir() {
      return auth?.dir ?? target.dataDir
    },
    async call<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
      if (!auth) {
        const found = fromRunFile()
        if (found.auth) auth = found.auth
        else {
          if (!(await reachable(base, 3000, target))) throw notRunning()
          const where = `no config at ${target.dataDir}/config.json`
          throw new CliError(found.dir ? `${where}; the bridge at ${base} uses --dir ${found.dir}: pass that` : `${where}; pass the --dir the bridge at ${base} was started with`)
        }
      }
      let res = await send(auth.token, method, path, body)
      if (res.status === 401) {
        const found = fromRunFile()
        if (found.auth) {
          auth = found.auth
          res = await send(auth.token, method, path, body)
        }
        if (res.status === 401) {
          const hint = found.dir ? ` (it runs with --dir ${found.dir})` : ''
          throw new CliError(
            auth.from === 'BRIDGE_ADMIN_TOKEN'
              ? `the admin token in BRIDGE_ADMIN_TOKEN is not the one the bridge at ${base} uses; unset it or pass the --dir that bridge was started with${hint}`
              : `the admin token in ${auth.from} is not the one the bridge at ${base} uses; was it started with another --dir?${hint}`,
          )
        }
      }
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      const error = typeof parsed === 'object' && parsed !== null && 'error' in parsed ? (parsed as { error: unknown }).error : undefined
      if (res.status === 404 && !error) throw new CliError(`the server at ${base} has no ${path}; is it a herdr-bridge (and one this recent)?`)
      if (!res.ok) throw new CliError(`${(error as string | undefined) ?? (text.trim() || `${method} ${path} answered ${res.status}`)}`)
      return parsed as T
    },
  }
}

/** Whether anything answers /healthz there (no token needed). */
export async function reachable(base: string, timeoutMs = 3000, target: Pick<Target, 'dispatcher'> = {}): Promise<boolean> {
  try {
    const res = await targetFetch(target, `${base}/healthz`, { signal: AbortSignal.timeout(timeoutMs) })
    await res.body?.cancel()
    return true
  } catch {
    return false
  }
}
