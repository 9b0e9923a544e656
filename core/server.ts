import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { toNodeHandler } from 'h3'
import { consola, type ConsolaInstance } from 'consola'
import type { BridgeConfig, BridgeUserConfig } from './config.ts'
import { splitAddr } from './config.ts'
import { loadPlugins, setupPlugins, type LoadedPlugins } from './loader.ts'
import type { PluginContext, PluginDef, ServerInfo } from './plugin.ts'
import { createCors } from './cors.ts'
import { compressResponse } from './compress.ts'
import { createBus, type Bus } from './bus.ts'
import { createHerdr, type Herdr } from './herdr/index.ts'
import { startIngest, type Ingest, type IngestOptions } from './herdr/ingest.ts'
import { createAgentKindRegistry } from './agent-kinds.ts'
import { exec } from './exec.ts'
import { createBridgeStorage, createDeviceStore } from '../storage/index.ts'
import { createAuditLog } from './audit.ts'
import { createDeviceSockets } from './device-sockets.ts'
import { createHttpApp } from './http.ts'
import { createWebSockets } from './websockets.ts'

export { MAX_WS_MESSAGE } from './websockets.ts'
export { errorToResponse } from './http.ts'

export interface BridgeOptions {
  config: BridgeConfig
  user: BridgeUserConfig
  log?: ConsolaInstance
  now?: () => number
  env?: NodeJS.ProcessEnv
  herdr?: Herdr
  /** herdr event ingestion (core/herdr/ingest.ts); `false` runs without it. */
  ingest?: IngestOptions | false
}

export interface Bridge {
  ctx: PluginContext
  /** herdr event ingestion, when it runs. */
  ingest: Ingest | null
  /** The state a running plugin's `setup` returned. */
  state<S>(plugin: PluginDef<any, S>): S | undefined
  fetch: (request: Request) => Promise<Response>
  listen(addr?: string): Promise<{ url: string; host: string; port: number }>
  close(): Promise<void>
  routes: LoadedPlugins
}

export async function createBridge(opts: BridgeOptions): Promise<Bridge> {
  const log = opts.log ?? consola.withTag('bridge')
  const config = opts.config
  const storage = createBridgeStorage(config.data_dir)
  const devices = await createDeviceStore(storage)
  const bus: Bus = createBus({ now: opts.now, onError: (err, sub) => log.warn(`bus subscriber ${sub.name ?? ''} failed: ${(err as Error)?.message ?? err}`) })
  const herdr = opts.herdr ?? createHerdr({ env: opts.env })
  const cors = createCors(config.transport.allowed_origins)
  const deviceSockets = createDeviceSockets((id) => !!devices.get(id))
  const audit = createAuditLog(config.data_dir, (err) => log.warn(`audit log: ${(err as Error).message}`))

  const ctx: PluginContext = {
    config,
    log,
    herdr,
    bus,
    storage,
    devices,
    agentKinds: createAgentKindRegistry(),
    exec,
    now: opts.now ?? Date.now,
    env: opts.env ?? process.env,
    home: (opts.env ?? process.env).HOME ?? '',
    server: { routes: undefined as unknown as LoadedPlugins } satisfies ServerInfo,
    sockets: {
      closeDevice: (id, code, reason) => deviceSockets.closeDevice(id, code, reason),
    },
  }
  const ctxFor = (plugin: string): PluginContext => ({ ...ctx, log: log.withTag(plugin) })

  const loaded = loadPlugins(opts.user.plugins)
  ctx.server = { routes: loaded }
  const { running, disposers } = await setupPlugins(loaded, ctxFor)
  const plugin = (name: string) => running.get(name)!
  // Started after the plugins so their bus subscriptions see the first multiplexer_connected.
  const ingest: Ingest | null = opts.ingest === false ? null : startIngest({ herdr, bus, log: log.withTag('ingest') }, opts.ingest ?? {})

  const app = createHttpApp(loaded, { config, devices, audit, log, plugin })

  const fetch = async (request: Request): Promise<Response> => {
    const started = performance.now()
    const pre = cors.preflight(request)
    const res = pre ?? (await compressResponse(request, cors.decorate(request, await app.fetch(request))))
    log.debug(`${request.method} ${new URL(request.url).pathname} → ${res.status} in ${(performance.now() - started).toFixed(1)} ms`)
    return res
  }

  const ws = createWebSockets(loaded, { config, devices, deviceSockets, log, plugin })

  let server: Server | null = null
  return {
    ctx,
    ingest,
    state: <S>(p: PluginDef<any, S>) => running.get(p.name)?.state as S | undefined,
    fetch,
    routes: loaded,
    async listen(addr = config.transport.addr) {
      const { host, port } = splitAddr(addr)
      const handler = toNodeHandler({ fetch } as any)
      server = createServer({ requestTimeout: 0, headersTimeout: 10_000 }, handler as any)
      server.on('upgrade', (req, socket, head) => {
        void ws.handleUpgrade(req, socket, head).catch(() => socket.destroy())
      })
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject)
        server!.listen(port, host, () => resolve())
      })
      const a = server.address() as AddressInfo
      const shown = a.family === 'IPv6' ? `[${a.address}]` : a.address
      ctx.server.url = `http://${shown}:${a.port}`
      return { url: ctx.server.url, host: a.address, port: a.port }
    },
    async close() {
      await ingest?.stop()
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
      await audit.flush()
      if (server) {
        server.closeAllConnections?.()
        await new Promise<void>((r) => server!.close(() => r()))
      }
    },
  }
}

