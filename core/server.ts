import type { Socket } from 'node:net'
import { toNodeHandler } from 'h3'
// consola's basic build: its default (fancy) one costs start-up CPU and an Intl.Segmenter (cli/serve.ts).
import { consola, type ConsolaInstance } from 'consola/basic'
import type { BridgeConfig } from './config.ts'
import { loadPlugins, setupPlugins, type LoadedPlugins } from './loader.ts'
import type { BridgeUserConfig, PluginContext, PluginDef, ServerInfo } from './plugin.ts'
import { createBus } from './bus.ts'
import { createHerdr, type Herdr } from './herdr/index.ts'
import { startIngest, type Ingest, type IngestOptions } from './herdr/ingest.ts'
import { watchHerdr } from './herdr/watch.ts'
import { createAgentKindRegistry } from '../lib/agent-kinds.ts'
import { createChannelRegistry } from './notify/channels.ts'
import type { Services } from './services.ts'
import { exec } from '../lib/exec.ts'
import { createBridgeStorage, createDeviceStore, migrateLegacyLayout, pluginStorage } from '../storage/index.ts'
import { sweepStaleTemps } from '../lib/atomic-file.ts'
import { createAuditLog } from '../storage/audit-log.ts'
import { createRevocationJournal } from '../storage/revocations.ts'
import { createDeviceSockets } from './device-sockets.ts'
import { createHttpApp } from './http.ts'
import { createWebSockets, webSocketHooks } from './websockets.ts'
import { createHostCheck } from './host-check.ts'
import { defaultLimits, refuse, type ServerGuard, type ServerLimits } from './limits.ts'
import { configuredTls, openListener, readTlsPair, type Listener } from './listener.ts'

export interface BridgeOptions {
  config: BridgeConfig
  user: BridgeUserConfig
  log?: ConsolaInstance
  now?: () => number
  env?: NodeJS.ProcessEnv
  herdr?: Herdr
  /** herdr event ingestion (core/herdr/ingest.ts); `false` runs without it. */
  ingest?: IngestOptions | false
  /** Deadlines and connection caps (core/limits.ts); defaults sized from the descriptor limit. */
  limits?: Partial<ServerLimits>
  /** Log herdr sessions found and lost, and that none is reachable (core/herdr/watch.ts), as `bridge serve` does. */
  herdrLines?: boolean
}

export interface Bridge {
  ctx: PluginContext
  /** herdr event ingestion, when it runs. */
  ingest: Ingest | null
  /** The state a running plugin's `setup` returned. */
  state<S>(plugin: PluginDef<never, S>): S | undefined
  /** The h3 app's fetch: a request in, its answer out, without a socket. */
  fetch: (request: Request) => Response | Promise<Response>
  /**
   * Serves on `addr` (host:port; default transport.addr), or on a port bound already with
   * `openListener` (`bridge serve` binds before anything starts).
   */
  listen(on?: string | Listener): Promise<{ url: string; host: string; port: number }>
  /**
   * Reads transport.tls_cert / tls_key again and serves new connections with them (SIGHUP, after
   * `tailscale cert` renews). Returns the new certificate's SHA-256 fingerprint; throws, keeping
   * the pair in use, when the files do not make a pair. Null when the bridge serves plain HTTP.
   */
  reloadTls(): string | null
  /** SHA-256 fingerprint of the certificate served now; null for plain HTTP. */
  tlsFingerprint(): string | null
  close(): Promise<void>
  routes: LoadedPlugins
}

export async function createBridge(opts: BridgeOptions): Promise<Bridge> {
  const { ctx, deviceSockets, audit, sweeper } = await createContext(opts)
  const { config, log, herdr, bus, devices, limits } = ctx
  const loaded = loadPlugins(opts.user.plugins)
  ctx.server = { routes: loaded }
  // The core's own services; the plugins' join them as each provider's setup returns.
  const { running, disposers } = await setupPlugins(loaded, (name) => ({ ...ctx, log: log.withTag(name), storage: pluginStorage(ctx.storage, name) }), ctx.services)
  const plugin = (name: string) => running.get(name)!
  const unwatch = opts.herdrLines ? watchHerdr({ herdr, bus, log, env: ctx.env }) : null
  // Started after the plugins so their bus subscriptions see the first multiplexer_connected.
  const ingest = opts.ingest === false ? null : startIngest({ herdr, bus, log: log.withTag('ingest') }, opts.ingest ?? {})
  let listener: Listener | null = null
  let guard: ServerGuard | null = null
  const hosts = createHostCheck(config)
  const wsDeps = { config, devices, deviceSockets, log, plugin }
  const app = createHttpApp(loaded, { config, devices, audit, log, plugin, limits, guard: () => guard, hosts, websocket: (route) => webSocketHooks(route, wsDeps) })
  const ws = createWebSockets(app)

  return {
    ctx,
    ingest,
    state: <S>(p: PluginDef<never, S>) => running.get(p.name)?.state as S | undefined,
    fetch: app.fetch,
    routes: loaded,
    async listen(on = config.transport.addr) {
      listener = typeof on === 'string' ? await openListener({ addr: on, tls: configuredTls(config), limits, log }) : on
      const g = (guard = listener.guard)
      listener.serve({
        request: toNodeHandler(app),
        upgrade(req, socket, head) {
          if (hosts.malformed(req.headers.host)) return refuse(socket, '400 Bad Request', hosts.badHost)
          if (!hosts.allows(req.headers.host)) return refuse(socket, '421 Misdirected Request', hosts.refusal(req.headers.host!))
          void ws.handleUpgrade(req, socket, head).then(
            // Still open after the upgrade: it authenticated (every WebSocket route needs a credential).
            () => socket.writable && g.authenticated(socket as Socket),
            () => socket.destroy(),
          )
        },
      })
      // The URL it took, for the plugins that describe the server.
      ctx.server.url = listener.url
      return { url: listener.url, host: listener.host, port: listener.port }
    },
    reloadTls() {
      if (!listener?.tlsFingerprint()) return null
      // Throws on files that do not make a pair: the running pair stays.
      const next = readTlsPair(config)
      listener.setTls(next)
      return next.fingerprint
    },
    tlsFingerprint: () => listener?.tlsFingerprint() ?? null,
    async close() {
      unwatch?.()
      await ingest?.stop()
      clearInterval(sweeper)
      for (const d of disposers) {
        try {
          await d()
        } catch (err) {
          log.warn(`shutdown: ${(err as Error).message}`)
        }
      }
      ws.closeAll(1001, 'server shutting down', false)
      herdr.close()
      await devices.flush()
      devices.stopRetrying()
      await audit.flush()
      await listener?.close()
    },
  }
}

/** Storage, devices, bus, herdr client and limits: the context every plugin is handed. */
async function createContext(opts: BridgeOptions) {
  const log = opts.log ?? consola.withTag('bridge')
  const { config } = opts
  const env = opts.env ?? process.env
  const swept = sweepStaleTemps(config.data_dir)
  if (swept) log.info(`removed ${swept} stale temp file(s) of interrupted writes from the data dir`)
  // Later, a temp file goes once its writer is gone (another process's write, killed midway).
  const sweepMs = Number(env.BRIDGE_TEMP_SWEEP_MS) > 0 ? Number(env.BRIDGE_TEMP_SWEEP_MS) : 10 * 60_000
  const sweeper = setInterval(() => {
    const n = sweepStaleTemps(config.data_dir, 60_000, Date.now(), 3, false)
    if (n) log.info(`removed ${n} temp file(s) whose writer is gone from the data dir`)
  }, sweepMs)
  sweeper.unref()
  // Before any plugin reads: keys of the old flat layout move to their plugin's own folder.
  const layout = migrateLegacyLayout(config.data_dir)
  if (layout.moved.length) log.info(`data dir: moved to each plugin's own storage: ${layout.moved.join(', ')}`)
  for (const key of layout.kept) log.warn(`data dir: ${key} is also in its plugin's folder, which wins; the old copy was left as it is (remove it once checked)`)
  const storage = createBridgeStorage(config.data_dir)
  // A revocation fails closed: refused at once, journaled, and retried until the registry is saved.
  const devices = await createDeviceStore(storage, {
    journal: createRevocationJournal(`${config.data_dir}/revoked.jsonl`),
    onProblem: (problem) => (problem ? log.error(problem) : log.info('device registry saved: every revocation is on disk')),
  })
  const deviceSockets = createDeviceSockets((id) => !!devices.get(id))
  const ctx: PluginContext = {
    config,
    log,
    herdr: opts.herdr ?? createHerdr({ env: opts.env }),
    bus: createBus({ now: opts.now, onError: (err, sub) => log.warn(`bus subscriber ${sub.name ?? ''} failed: ${(err as Error)?.message ?? err}`) }),
    storage,
    devices,
    agentKinds: createAgentKindRegistry(),
    exec,
    limits: { ...defaultLimits(undefined, env), ...opts.limits },
    now: opts.now ?? Date.now,
    env,
    home: env.HOME ?? '',
    server: { routes: undefined as unknown as LoadedPlugins } satisfies ServerInfo,
    sockets: { closeDevice: (id, code, reason) => deviceSockets.closeDevice(id, code, reason) },
    // Every service, for the bridge's owner (tests, the CLI); a plugin sees only those it declares.
    services: { notifyChannels: createChannelRegistry() } satisfies Partial<Services> as Services,
  }
  const audit = createAuditLog(config.data_dir, (err) => log.warn(`audit log: ${(err as Error).message}`))
  return { ctx, deviceSockets, audit, sweeper }
}
