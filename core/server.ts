import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { H3, toNodeHandler, type H3Event } from 'h3'
import crossws from 'crossws/adapters/node'
import type { Peer } from 'crossws'
import { consola, type ConsolaInstance } from 'consola'
import * as v from 'valibot'
import type { BridgeConfig, BridgeUserConfig } from './config.ts'
import { splitAddr } from './config.ts'
import { loadPlugins, setupPlugins, type MountedRoute, type LoadedPlugins } from './loader.ts'
import type { AuthInfo, PluginContext, WsContext } from './plugin.ts'
import { authenticate, credentialOf } from './auth.ts'
import { createCors } from './cors.ts'
import { compressResponse, wsDeflateFor } from './compress.ts'
import { errorResponse, HttpError, json, text, unauthorized } from './respond.ts'
import { createBus, type Bus } from './bus.ts'
import { createHerdr, HerdrError, type Herdr } from './herdr/index.ts'
import { startIngest, type Ingest, type IngestOptions } from './herdr/ingest.ts'
import { createAgentKindRegistry } from './agent-kinds.ts'
import { exec } from './exec.ts'
import { createBridgeStorage, createDeviceStore } from '../storage/index.ts'
import { createAuditLog, auditActor, auditTarget } from './audit.ts'

const MAX_JSON_BODY = 1024 * 1024
/**
 * Largest inbound WebSocket message. Clients send only small control frames and keystrokes;
 * ws's own default (100 MiB) would let one socket make the bridge buffer that much. Bigger
 * frames are refused with 1009 as soon as their header announces the size.
 */
export const MAX_WS_MESSAGE = 1024 * 1024

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
  const deviceSockets = new Map<string, Set<Peer>>()
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
    services: new Map(),
    sockets: {
      closeDevice(id, code = 1008, reason = 'device revoked') {
        for (const peer of deviceSockets.get(id) ?? []) peer.close(code, reason)
        deviceSockets.delete(id)
      },
    },
  }
  const ctxFor = (plugin: string): PluginContext => ({ ...ctx, log: log.withTag(plugin) })

  const loaded = loadPlugins(opts.user.plugins)
  ctx.services.set('routes', loaded)
  const pluginCtx = new Map(loaded.plugins.map((p) => [p.def.name, ctxFor(p.def.name)]))
  const disposers = await setupPlugins(loaded, (name) => pluginCtx.get(name)!)
  // Started after the plugins so their bus subscriptions see the first multiplexer_connected.
  const ingest: Ingest | null = opts.ingest === false ? null : startIngest({ herdr, bus, log: log.withTag('ingest') }, opts.ingest ?? {})
  if (ingest) ctx.services.set('herdr.ingest', ingest)

  const app = new H3()

  const dispatch = async (event: H3Event, byMethod: Map<string, MountedRoute>): Promise<Response> => {
    const request = event.req as Request
    const url = new URL(request.url)
    const method = request.method === 'HEAD' ? 'GET' : request.method
    const route = byMethod.get(method) ?? [...byMethod.values()][0]
    // Auth comes first, before validation, method checks or any herdr call or disk read.
    const auth = authenticate(route.auth, credentialOf(request, url, !!route.queryToken), config.admin_token, devices)
    if (!auth) return unauthorized()
    const style = route.errors ?? 'text'
    if (!byMethod.has(method)) return errorResponse(405, `${[...byMethod.keys()].join(', ')} only`, style, { allow: [...byMethod.keys()].join(', ') })
    // What the handler saw, kept for the audit line (bodies are logged by length only).
    const seen: { query: Record<string, any>; body: unknown } = { query: {}, body: undefined }
    const res = await runRoute(route, event, request, url, method, auth, style, seen)
    if (method !== 'GET' && route.audit !== false) {
      const { query, body } = seen
      const b = (body ?? {}) as Record<string, unknown>
      audit.record({
        ts: Date.now(),
        device: auditActor(auth),
        route: `${method} ${url.pathname}`,
        pane: auditTarget(query, body),
        ...(typeof b.method === 'string' ? { method: b.method } : {}),
        status: res.status,
        ...(typeof b.text === 'string' ? { text_length: b.text.length } : {}),
        ...(route.bodyType === 'raw' ? { bytes: Number(request.headers.get('content-length') ?? 0) } : {}),
      })
    }
    return res
  }

  const runRoute = async (
    route: MountedRoute,
    event: H3Event,
    request: Request,
    url: URL,
    method: string,
    auth: AuthInfo,
    style: 'text' | 'json',
    seen: { query: Record<string, any>; body: unknown },
  ): Promise<Response> => {
    try {
      seen.query = route.query ? parseWith(route.query, Object.fromEntries(url.searchParams), route.invalid) : Object.fromEntries(url.searchParams)
      if (route.bodyType !== 'raw' && method !== 'GET') {
        seen.body = await readJsonBody(request, route.invalid)
        if (route.body) seen.body = parseWith(route.body, seen.body, route.invalid)
      }
      const out = await route.handler({ event, query: seen.query, body: seen.body, auth, ctx: pluginCtx.get(route.plugin)! })
      if (out instanceof Response) return out
      if (out === undefined || out === null) return new Response(null, { status: 204 })
      if (typeof out === 'string') return text(out)
      return json(out)
    } catch (err) {
      return errorToResponse(err, style, log, `${method} ${url.pathname}`)
    }
  }

  for (const [path, byMethod] of loaded.routes) {
    if (path === '/**') continue
    app.all(path, (event) => dispatch(event, byMethod))
  }
  for (const [path, ws] of loaded.websockets) {
    // A plain GET on a WebSocket path: auth, then the route's own verdict (404 …), then 426.
    app.all(path, async (event) => {
      const request = event.req as Request
      const url = new URL(request.url)
      const auth = authenticate(ws.auth, credentialOf(request, url, !!ws.queryToken), config.admin_token, devices)
      if (!auth) return unauthorized()
      try {
        const state = await ws.accept?.({ request, url, auth, ctx: pluginCtx.get(ws.plugin)! })
        if (state instanceof Response) return state
      } catch (err) {
        return errorToResponse(err, 'text', log, `GET ${url.pathname}`)
      }
      return text('upgrade required: this is a WebSocket route', 426, { upgrade: 'websocket' })
    })
  }
  const fallback = loaded.routes.get('/**')
  // The catch-all serves pages; any other method on an unknown path is a wrong path, not a
  // wrong method (a typo'd POST /aprove should say so).
  app.all('/**', (event) => {
    const m = (event.req as Request).method === 'HEAD' ? 'GET' : (event.req as Request).method
    return fallback?.has(m) ? dispatch(event, fallback) : text('not found', 404)
  })

  const fetch = async (request: Request): Promise<Response> => {
    const started = performance.now()
    const pre = cors.preflight(request)
    const res = pre ?? (await compressResponse(request, cors.decorate(request, await app.fetch(request))))
    log.debug(`${request.method} ${new URL(request.url).pathname} → ${res.status} in ${(performance.now() - started).toFixed(1)} ms`)
    return res
  }

  const ws = crossws({
    serverOptions: { maxPayload: MAX_WS_MESSAGE },
    resolve: (request: Request) => {
      const url = new URL(request.url)
      const route = loaded.websockets.get(url.pathname)
      if (!route) return { upgrade: () => text('not found', 404) }
      const rctx = pluginCtx.get(route.plugin)!
      const wsCtx = (peer: Peer) => peer.context.ws as WsContext
      return {
        upgrade: async (req: Request) => {
          const auth = authenticate(route.auth, credentialOf(req, url, !!route.queryToken), config.admin_token, devices)
          if (!auth) return unauthorized()
          try {
            const state = await route.accept?.({ request: req, url, auth, ctx: rctx })
            if (state instanceof Response) return state
            return { context: { ws: { auth, url, state } satisfies WsContext }, perMessageDeflate: wsDeflateFor(route) }
          } catch (err) {
            return errorToResponse(err, 'text', log, `WS ${url.pathname}`)
          }
        },
        open: (peer: Peer) => {
          const w = wsCtx(peer)
          if (w.auth.deviceId) {
            let set = deviceSockets.get(w.auth.deviceId)
            if (!set) deviceSockets.set(w.auth.deviceId, (set = new Set()))
            set.add(peer)
          }
          return route.open(peer, w)
        },
        message: (peer: Peer, message) => route.message?.(peer, message, wsCtx(peer)),
        close: (peer: Peer, details) => {
          const w = wsCtx(peer)
          if (w?.auth.deviceId) deviceSockets.get(w.auth.deviceId)?.delete(peer)
          return route.close?.(peer, w, details)
        },
        error: (peer: Peer, error) => log.debug(`websocket ${url.pathname}: ${error?.message ?? error}`),
      }
    },
  })

  let server: Server | null = null
  return {
    ctx,
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
      return { url: `http://${shown}:${a.port}`, host: a.address, port: a.port }
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

function parseWith(schema: v.GenericSchema, input: unknown, invalid?: string): any {
  const r = v.safeParse(schema, input)
  if (r.success) return r.output
  if (invalid) throw new HttpError(400, invalid)
  const issue = r.issues[0]
  const path = issue.path?.map((p) => String(p.key)).join('.')
  // Schemas may already name the field in their message ("code: want a string").
  throw new HttpError(400, path && !issue.message.startsWith(`${path}:`) ? `${path}: ${issue.message}` : issue.message)
}

async function readJsonBody(request: Request, invalid?: string): Promise<unknown> {
  const len = Number(request.headers.get('content-length') ?? '0')
  if (len > MAX_JSON_BODY) throw new HttpError(413, `body over ${MAX_JSON_BODY} bytes`)
  const raw = await readCapped(request, MAX_JSON_BODY)
  if (!raw.trim()) return {}
  try {
    return JSON.parse(raw)
  } catch {
    throw new HttpError(400, invalid ?? 'body is not valid JSON')
  }
}

/**
 * The body as text, refused with 413 as soon as it passes `max` bytes: a chunked body has no
 * Content-Length to check up front, and `request.text()` would buffer all of it first.
 */
async function readCapped(request: Request, max: number): Promise<string> {
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      reader.cancel().catch(() => {})
      throw new HttpError(413, `body over ${max} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Maps what a handler threw to a response: its own HttpError, herdr's errors, else a logged 500. */
export function errorToResponse(err: unknown, style: 'text' | 'json', log: ConsolaInstance, where: string): Response {
  if (err instanceof HttpError) return errorResponse(err.status, err.message, style, err.headers)
  if (err instanceof HerdrError) {
    if (err.code === 'session_not_found') return errorResponse(404, err.message, style)
    return errorResponse(502, `herdr: ${err.code}: ${err.message}`, style)
  }
  log.error(`${where} failed:`, err)
  return errorResponse(500, 'internal error (see the bridge log)', style)
}
