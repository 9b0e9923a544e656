import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { consola as plain, type ConsolaInstance } from 'consola/basic'
import { createConfigFile, loadConfig, resolveDataDir, type BridgeConfig } from '../core/config.ts'
import type { BridgeUserConfig } from '../core/plugin.ts'
import { createBridge } from '../core/server.ts'
import { configuredTls, openListener, type Listener, type TlsPair } from '../core/listener.ts'
import { defaultLimits, type ServerLimits } from '../core/limits.ts'
import { PluginSetupError } from '../core/services.ts'
import { baseOfAddr } from './admin-client.ts'
import { CliError, bridgeCommand } from './errors.ts'
import { writeRunFile } from './runfile.ts'
import { findUserConfig, loadUserConfig } from './user-config.ts'
import { checkServeTrust } from './data-dir-check.ts'
import { nodeSupportWarning } from '../lib/node-support.ts'

export interface ServeOptions {
  dir?: string
  addr?: string
  /** `--config <file>`; else BRIDGE_CONFIG, else `<data dir>/bridge.config.ts` when present, else the built-in list. */
  config?: string
  /** `--insecure-data-dir`: start even when the data dir or a config file could be changed by another user (logged). */
  insecureDataDir?: boolean
  /** `--tls-cert` / `--tls-key`: serve HTTPS and WSS with this PEM pair (else transport.tls_cert / tls_key). */
  tlsCert?: string
  tlsKey?: string
}

export async function serve(opts: ServeOptions): Promise<void> {
  // A terminal gets consola's fancy lines; a service, pipe or file gets plain ones: the fancy
  // reporter costs ~45 ms of start-up CPU and 2.9 MiB of idle RSS (an Intl.Segmenter), measured.
  const consola = process.stderr.isTTY ? (await import('consola')).consola : plain
  // consola lowers its level under CI/test env vars; a daemon's log level is ours to set.
  consola.level = process.env.BRIDGE_LOG_LEVEL ? Number(process.env.BRIDGE_LOG_LEVEL) : 3
  // No clock time on log lines: formatting one loads ICU's date data, 6 MiB of the daemon's idle
  // RSS (measured), and journald or a log file stamps lines itself.
  consola.options.formatOptions.date = false
  const log = consola.withTag('bridge')
  const dataDir = resolveDataDir(opts.dir)
  // Before anything in the data dir is read or run: another user's config or code is refused.
  checkServeTrust({ dataDir, configFile: findUserConfig({ flag: opts.config, env: process.env, dataDir }), insecure: opts.insecureDataDir, log })
  const { config: userConfig, file } = await loadUserConfig({ flag: opts.config, env: process.env, dataDir })
  // The config is read once and the address taken from it; the port is bound before anything is
  // written or started, so a busy one (another bridge, most likely) leaves the data dir as it was.
  const { config, tls } = loadServeConfig(opts, dataDir, userConfig)
  const limits = defaultLimits()
  const listener = await bind(config, tls, limits, log)
  createConfigFile(config)
  const bridge = await createBridge({ config, user: userConfig, log, limits, herdrLines: true }).catch((err) => {
    // A plugin list that cannot start says why in one line (core/services.ts).
    throw err instanceof PluginSetupError ? new CliError(err.message) : err
  })
  const { url, port } = await bridge.listen(listener)
  log.info(`plugins from ${file ?? 'the built-in list'}: ${userConfig.plugins.map((e) => (Array.isArray(e) ? e[0] : e).name).join(', ')}`)
  log.info(`listening on ${url}`)
  // Once it runs: a start that fails still says only why, in one line.
  const oldNode = nodeSupportWarning()
  if (oldNode) log.warn(oldNode)
  log.info(`data dir ${config.data_dir}; pair a device with \`${bridgeCommand('pair')}\``)
  const fingerprint = bridge.tlsFingerprint()
  const runInfo = { pid: process.pid, url, data_dir: config.data_dir, ...(fingerprint ? { tls_fingerprint: fingerprint } : {}) }
  const removeRunFile = writeRunFile(port, runInfo)
  if (fingerprint) {
    log.info(`serving HTTPS with ${config.transport.tls_cert} (SHA-256 ${fingerprint}); \`kill -HUP ${process.pid}\` reloads the pair`)
    // A renewed certificate (`tailscale cert` again) is taken without dropping a connection.
    process.on('SIGHUP', () => {
      try {
        const next = bridge.reloadTls()!
        writeRunFile(port, { ...runInfo, tls_fingerprint: next })
        log.info(`SIGHUP: reloaded the TLS pair (SHA-256 ${next})`)
      } catch (err) {
        log.error(`SIGHUP: kept the TLS pair in use: ${(err as Error).message}`)
      }
    })
  }
  let closing = false
  const stop = async (sig: string) => {
    if (closing) return
    closing = true
    log.info(`${sig}: shutting down`)
    removeRunFile?.()
    await bridge.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('exit', () => removeRunFile?.())
}

/** Where the listen address came from, for the one-line error about it. */
function addrSource(opts: ServeOptions, config: BridgeConfig, firstRun: boolean): string {
  return opts.addr ? '--addr' : process.env.BRIDGE_ADDR ? 'BRIDGE_ADDR' : firstRun ? 'the default address' : `transport.addr in ${config.config_path}`
}

/**
 * The config (a first run's not yet written) with the flags applied, and its TLS pair read,
 * refusing what cannot run before anything starts.
 */
function loadServeConfig(opts: ServeOptions, dataDir: string, userConfig: BridgeUserConfig): { config: BridgeConfig; tls: TlsPair | null } {
  const firstRun = !existsSync(join(dataDir, 'config.json'))
  let config: BridgeConfig
  try {
    config = loadConfig({ dir: dataDir, defaults: userConfig.defaults, create: 'later' })
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  if (opts.addr) config.transport.addr = opts.addr
  if (opts.tlsCert) config.transport.tls_cert = opts.tlsCert
  if (opts.tlsKey) config.transport.tls_key = opts.tlsKey
  baseOfAddr(config.transport.addr, addrSource(opts, config, firstRun))
  let tls: TlsPair | null
  try {
    tls = configuredTls(config)
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  if (config.transport.mode === 'relay') {
    const where = process.env.BRIDGE_MODE === 'relay' ? 'BRIDGE_MODE is "relay"' : `transport.mode is "relay" in ${config.config_path}`
    throw new CliError(`${where}, and this build runs only the direct transport; set it to "direct" and start again`)
  }
  return { config, tls }
}

/** Binds transport.addr, with the usual failures (a busy port first) said as one line each. */
async function bind(config: BridgeConfig, tls: TlsPair | null, limits: ServerLimits, log: ConsolaInstance): Promise<Listener> {
  try {
    return await openListener({ addr: config.transport.addr, tls, limits, log })
  } catch (err) {
    throw listenError(err, config.transport.addr)
  }
}

function listenError(err: unknown, addr: string): unknown {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE') return new CliError(`${addr} is already in use — is another bridge running? (\`${bridgeCommand('status')}\`) Choose another with --addr`)
  if (code === 'EACCES') return new CliError(`no permission to listen on ${addr} (ports below 1024 need privileges); choose another with --addr`)
  if (code === 'EADDRNOTAVAIL') return new CliError(`${addr} is not an address of this machine; choose one it has with --addr (\`ip addr\` lists them)`)
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new CliError(`cannot resolve the host in ${addr}; use an IP address with --addr`)
  return err
}
