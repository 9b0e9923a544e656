import { consola } from 'consola'
import { loadConfig, type BridgeConfig } from '../core/config.ts'
import { createBridge, type Bridge } from '../core/server.ts'
import userConfig from '../bridge.config.ts'
import { baseOfAddr } from './admin-client.ts'
import { CliError, bridgeCommand } from './errors.ts'
import { writeRunFile } from './runfile.ts'
import { watchHerdr } from './herdr-watch.ts'

export interface ServeOptions {
  dir?: string
  addr?: string
  // `--config <file>` (user config loading) plugs in here: it yields the BridgeUserConfig below.
}

export async function serve(opts: ServeOptions): Promise<void> {
  // consola lowers its level under CI/test env vars; a daemon's log level is ours to set.
  consola.level = process.env.BRIDGE_LOG_LEVEL ? Number(process.env.BRIDGE_LOG_LEVEL) : 3
  const log = consola.withTag('bridge')
  const config = loadServeConfig(opts)
  const bridge = await createBridge({ config, user: userConfig, log })
  const { url, port } = await listenOrExplain(bridge, config)
  log.info(`listening on ${url}`)
  log.info(`data dir ${config.data_dir}; pair a device with \`${bridgeCommand('pair')}\``)
  const removeRunFile = writeRunFile(port, { pid: process.pid, url, data_dir: config.data_dir })
  const unwatch = watchHerdr({ herdr: bridge.ctx.herdr, bus: bridge.ctx.bus, log, env: process.env, states: () => ingestStates(bridge) })
  let closing = false
  const stop = async (sig: string) => {
    if (closing) return
    closing = true
    log.info(`${sig}: shutting down`)
    unwatch()
    removeRunFile?.()
    await bridge.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('exit', () => removeRunFile?.())
}

function ingestStates(bridge: Bridge): Record<string, string> {
  return bridge.ingest?.state() ?? {}
}

/** The config with --addr applied, refusing what cannot run before anything starts. */
function loadServeConfig(opts: ServeOptions): BridgeConfig {
  let config: BridgeConfig
  try {
    config = loadConfig({ dir: opts.dir, defaults: userConfig.defaults })
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  if (opts.addr) config.transport.addr = opts.addr
  baseOfAddr(config.transport.addr, opts.addr ? '--addr' : process.env.BRIDGE_ADDR ? 'BRIDGE_ADDR' : `transport.addr in ${config.config_path}`)
  if (config.transport.mode === 'relay') {
    const where = process.env.BRIDGE_MODE === 'relay' ? 'BRIDGE_MODE is "relay"' : `transport.mode is "relay" in ${config.config_path}`
    throw new CliError(`${where}, and this build runs only the direct transport; set it to "direct" and start again`)
  }
  return config
}

/** listen(), with the usual failures said as one line each. */
async function listenOrExplain(bridge: Bridge, config: BridgeConfig): Promise<{ url: string; port: number }> {
  const addr = config.transport.addr
  try {
    return await bridge.listen()
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') throw new CliError(`${addr} is already in use — is another bridge running? (\`${bridgeCommand('status')}\`) Choose another with --addr`)
    if (code === 'EACCES') throw new CliError(`no permission to listen on ${addr} (ports below 1024 need privileges); choose another with --addr`)
    if (code === 'EADDRNOTAVAIL') throw new CliError(`${addr} is not an address of this machine; choose one it has with --addr (\`ip addr\` lists them)`)
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new CliError(`cannot resolve the host in ${addr}; use an IP address with --addr`)
    throw err
  }
}
