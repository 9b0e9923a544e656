import { assertBodySize, H3, HTTPError, HTTPResponse, type H3Event } from 'h3'
import type { ConsolaInstance } from 'consola'
import * as v from 'valibot'
import type { BridgeConfig } from './config.ts'
import type { LoadedPlugins, MountedRoute, MountedWs, RunningPlugin } from './loader.ts'
import type { AuthInfo } from './plugin.ts'
import type { DeviceStore } from '../storage/devices.ts'
import { authenticate, credentialOf } from './auth.ts'
import { errorResponse, HttpError, json, text, unauthorized } from './respond.ts'
import { HerdrError } from './herdr/index.ts'
import type { createAuditLog } from '../storage/audit-log.ts'
import { RESOURCE_CODES } from '../lib/exec.ts'
import { hasBody, isJsonContentType } from './content-type.ts'
import { controlInParams } from '../lib/strings.ts'
import type { ServerGuard, ServerLimits } from './limits.ts'
import { bodyChunks } from '../lib/body.ts'
import { createCors } from './cors.ts'

const MAX_JSON_BODY = 1024 * 1024

export interface HttpDeps {
  config: BridgeConfig
  devices: DeviceStore
  audit: ReturnType<typeof createAuditLog>
  log: ConsolaInstance
  plugin: (name: string) => RunningPlugin
  /** Deadlines for reading bodies (core/limits.ts). */
  limits: ServerLimits
  /** The connection guard, once the server listens: told when a connection authenticates. */
  guard: () => ServerGuard | null
}

/**
 * The h3 app: CORS first, then each manifest route behind auth (before validation or any work), then its
 * schemas, then its handler; a plain GET on a WebSocket path; the page catch-all.
 */
export function createHttpApp(loaded: LoadedPlugins, deps: HttpDeps): H3 {
  const { config, devices, audit, log, plugin, limits } = deps
  const app = new H3()
  app.use(createCors(config.transport.allowed_origins))

  const dispatch = async (event: H3Event, byMethod: Map<string, MountedRoute>): Promise<Response> => {
    const request = event.req as Request
    const url = new URL(request.url)
    const method = request.method === 'HEAD' ? 'GET' : request.method
    const route = byMethod.get(method) ?? [...byMethod.values()][0]
    // Auth comes first, before validation, method checks or any herdr call or disk read.
    const auth = authenticate(route.auth, credentialOf(request, url, !!route.queryToken), config.admin_token, devices)
    if (!auth) return unauthorized()
    if (auth.kind !== 'none') deps.guard()?.authenticated(nodeSocketOf(request))
    const style = route.errors ?? 'text'
    if (!byMethod.has(method)) return errorResponse(405, `${[...byMethod.keys()].join(', ')} only`, style, { allow: [...byMethod.keys()].join(', ') })
    const seen: Seen = { query: {}, body: undefined, valid: false }
    const res = await runRoute(route, event, request, url, method, auth, style, seen)
    if (method !== 'GET' && route.audit !== false) {
      let fields
      try {
        fields = seen.valid ? route.audit?.({ query: seen.query, body: seen.body }) : undefined
      } catch {
        fields = undefined
      }
      audit.record({
        ts: Date.now(),
        device: auditActor(auth),
        route: `${method} ${url.pathname}`,
        ...fields,
        status: res.status,
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
    seen: Seen,
  ): Promise<Response> => {
    try {
      // Only declared parameters reach a handler, so the API document lists all it reads.
      seen.query = route.query ? parseWith(route.query, Object.fromEntries(url.searchParams), route.invalid) : {}
      const bad = controlInParams(seen.query)
      if (bad) throw new HttpError(400, bad)
      if (route.bodyType !== 'raw' && method !== 'GET') {
        if (hasBody(request.headers) && !isJsonContentType(request.headers.get('content-type'))) throw new HttpError(415, 'want Content-Type: application/json')
        const raw = await readJsonBody(event, limits, route.invalid)
        // As for the query: a handler sees only a body its schema declares.
        seen.body = route.body ? parseWith(route.body, raw, route.invalid) : {}
      }
      seen.valid = true
      const { ctx, state } = plugin(route.plugin)
      const out = await route.handler({ event, query: seen.query, body: seen.body, auth, ctx, state })
      if (out instanceof Response) return out
      // h3's own answers (serveStatic's): h3 adds the headers they staged on the event.
      if (out instanceof HTTPResponse) return new Response(out.body, { status: out.status ?? 200, headers: out.headers })
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
        const accepted = await acceptWs(ws, plugin(ws.plugin), request, url, auth)
        if (accepted instanceof Response) return accepted
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

  return app
}

/** Validates a WebSocket route's query, then asks the route whether to accept. */
export function acceptWs(route: MountedWs, running: RunningPlugin, request: Request, url: URL, auth: AuthInfo) {
  const query = route.query ? parseWith(route.query, Object.fromEntries(url.searchParams)) : {}
  const bad = controlInParams(query)
  if (bad) throw new HttpError(400, bad)
  const { ctx, state } = running
  return route.accept ? route.accept({ request, url, query, auth, ctx, state }) : undefined
}

/** What the handler saw, kept for the audit line (bodies are logged by length only). */
interface Seen {
  query: Record<string, any>
  body: unknown
  /** Both passed validation, so the route's audit hook may read them. */
  valid: boolean
}

function parseWith(schema: v.GenericSchema, input: unknown, invalid?: string): any {
  const r = v.safeParse(schema, input)
  if (r.success) return r.output
  // A control character is named as such even where the route has one fixed message.
  const control = r.issues.find((i) => i.message.endsWith('control characters are not allowed'))
  if (control) throw new HttpError(400, control.message)
  if (invalid) throw new HttpError(400, invalid)
  const issue = r.issues[0]
  const path = issue.path?.map((p) => String(p.key)).join('.')
  // Schemas may already name the field in their message ("code: want a string", "want ?pane=").
  const named = !path || issue.message.startsWith(`${path}:`) || issue.message.startsWith(`${path} `) || issue.message.includes(`?${path}=`)
  throw new HttpError(400, named ? issue.message : `${path}: ${issue.message}`)
}

/**
 * The JSON body, read through h3's size limit: a declared length over the cap is refused before
 * reading, a chunked body as soon as it passes the cap (docs/security.md).
 */
async function readJsonBody(event: H3Event, limits: ServerLimits, invalid?: string): Promise<unknown> {
  let raw: string
  try {
    assertBodySize(event, MAX_JSON_BODY)
    // Read with idle and total deadlines, so a client trickling bytes cannot hold the connection.
    const chunks: Uint8Array[] = []
    for await (const c of bodyChunks((event.req as Request).body, { idleMs: limits.body_idle_ms, totalMs: limits.json_body_ms, max: MAX_JSON_BODY })) chunks.push(c)
    raw = Buffer.concat(chunks).toString('utf8')
  } catch (err) {
    if (!HTTPError.isError(err)) throw err
    if (err.status === 413) throw new HttpError(413, `body over ${MAX_JSON_BODY} bytes`)
    throw new HttpError(err.status, err.status === 400 ? 'want Content-Length or Transfer-Encoding, not both' : err.message)
  }
  if (!raw.trim()) return {}
  try {
    return JSON.parse(raw)
  } catch {
    throw new HttpError(400, invalid ?? 'body is not valid JSON')
  }
}

/** Maps what a handler threw to a response: an HTTPError, herdr's errors, else a logged 500. */
export function errorToResponse(err: unknown, style: 'text' | 'json', log: ConsolaInstance, where: string): Response {
  const code = (err as NodeJS.ErrnoException)?.code
  const busy = typeof code === 'string' && RESOURCE_CODES.has(code)
  if (busy) log.warn(`${where}: ${code}`)
  if (HTTPError.isError(err)) {
    const headers: Record<string, string> = {}
    err.headers?.forEach((value, key) => (headers[key] = value))
    return errorResponse(err.status, err.message, style, headers)
  }
  if (err instanceof HerdrError) {
    if (err.code === 'session_not_found') return errorResponse(404, err.message, style)
    return errorResponse(502, `herdr: ${err.code}: ${err.message}`, style)
  }
  // The client hung up mid-request: nobody reads the answer, and any client can do it, so one quiet line.
  if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (err as Error)?.message === 'aborted') {
    log.debug(`${where}: client aborted the request`)
    return errorResponse(400, 'request aborted', style)
  }
  if (busy) {
    const what = code === 'ENOMEM' ? 'memory' : code === 'EAGAIN' ? 'processes' : 'file descriptors'
    return errorResponse(503, `the bridge is out of ${what} (${code}); retry later`, style, { 'retry-after': '5' })
  }
  log.error(`${where} failed:`, err)
  return errorResponse(500, 'internal error (see the bridge log)', style)
}

/** The node socket under a request (srvx keeps the node request on `runtime`). */
function nodeSocketOf(request: Request): import('node:net').Socket | undefined {
  return (request as { runtime?: { node?: { req?: { socket?: import('node:net').Socket } } } }).runtime?.node?.req?.socket
}

/** Who, in the log: the device id, `admin`, or `-` for unauthenticated routes (pairing). */
export function auditActor(auth: AuthInfo): string {
  return auth.kind === 'device' ? auth.deviceId! : auth.kind === 'admin' ? 'admin' : '-'
}
