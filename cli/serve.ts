import { consola } from 'consola'
import { loadConfig, resolveDataDir } from '../core/config.ts'
import { createBridge } from '../core/server.ts'
import { loadUserConfig, UserConfigError, type LoadedUserConfig } from './user-config.ts'

export async function serve(opts: { dir?: string; addr?: string; config?: string }): Promise<void> {
  // consola lowers its level under CI/test env vars; a daemon's log level is ours to set.
  consola.level = process.env.BRIDGE_LOG_LEVEL ? Number(process.env.BRIDGE_LOG_LEVEL) : 3
  const log = consola.withTag('bridge')
  let loaded: LoadedUserConfig
  try {
    loaded = await loadUserConfig({ flag: opts.config, env: process.env, dataDir: resolveDataDir(opts.dir) })
  } catch (err) {
    if (!(err instanceof UserConfigError)) throw err
    // What to fix, in one line: the path and the reason.
    console.error(`bridge: ${err.message}`)
    process.exit(1)
  }
  const { config: userConfig, file } = loaded
  const config = loadConfig({ dir: opts.dir, defaults: userConfig.defaults })
  if (opts.addr) config.transport.addr = opts.addr
  if (config.transport.mode === 'relay') {
    log.warn('transport.mode is "relay": the relay transport is not operative in this build, so nothing was started. Set transport.mode to "direct".')
    process.exitCode = 1
    return
  }
  const bridge = await createBridge({ config, user: userConfig, log })
  const { url } = await bridge.listen()
  bridge.ctx.services.set('listen.url', url)
  log.info(`plugins from ${file ?? 'the built-in list'}: ${userConfig.plugins.map((e) => (Array.isArray(e) ? e[0] : e).name).join(', ')}`)
  log.info(`listening on ${url}`)
  log.info(`data dir ${config.data_dir}; pair a device with \`npx bridge pair\``)
  let closing = false
  const stop = async (sig: string) => {
    if (closing) return
    closing = true
    log.info(`${sig}: shutting down`)
    await bridge.close()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}
