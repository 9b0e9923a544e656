import {
  defineHandler,
  defineWebSocketHandler,
  getRequestIP,
  getValidatedQuery,
  H3,
  HTTPError,
  HTTPResponse,
  onError,
  onResponse,
  type H3Event,
  type HTTPEvent,
  type Middleware,
  type WebSocketHooks,
} from 'h3'
import type { ConsolaInstance } from 'consola'
import * as v from 'valibot'
import type { BridgeConfig } from './config.ts'
import type { LoadedPlugins, MountedRoute, MountedWs, RunningPlugin } from './loader.ts'
import type { AuthInfo, ErrorStyle, Role, RouteDef } from './plugin.ts'
import type { DeviceStore } from '../storage/devices.ts'
import type { createAuditLog } from '../storage/audit-log.ts'
import type { ServerGuard, ServerLimits } from './limits.ts'
import type { HostCheck } from './host-check.ts'
import { authenticate, credentialOf, roleAllows, roleRefusal, routeRole } from './auth.ts'
import { errorResponse, HttpError, json, text, unauthorized } from './respond.ts'
import { AGENT_BLOCKED, HerdrError } from './herdr/index.ts'
import { hasBody, isJsonContentType } from './content-type.ts'
import { createCors } from './cors.ts'
import { RESOURCE_CODES } from '../lib/exec.ts'
import { controlInParams } from '../lib/strings.ts'
import { compressResponse } from '../lib/http/compress.ts'
import { readBodyText } from './body.ts'

const MAX_JSON_BODY = 1024 * 1024

declare module 'h3' {
  interface H3EventContext {
    /** The caller, once the route's auth middleware accepted its credential. */
    auth?: AuthInfo
    /** The auth middleware refused the request; `who` is the caller whose role fell short. */
    refused?: { who?: AuthInfo }
    /** The query and body once both passed validation, for the route's audit line. */
    input?: { query: unknown; body: unknown }
    /** When the request reached the app (the debug line's duration). */
    started?: number
    /** Set by the WebSocket adapter (core/websockets.ts): this request asks to upgrade. */
    upgrade?: boolean
  }
}

/**
 * What the bridge keeps in an h3 route's `meta`: who may call it (`?token=` too? which device
 * role?), how its errors read, the manifest route (its audit line), and whether it is a WebSocket.
 */
type BridgeRouteMeta = Required<Pick<RouteDef, 'auth' | 'queryToken' | 'errors' | 'role'>> & {
  route?: MountedRoute
  websocket?: boolean
}

const bridgeMeta = (r: Partial<BridgeRouteMeta> & Pick<RouteDef, 'auth'>, role: Role = 'viewer', extra: Pick<BridgeRouteMeta, 'route' | 'websocket'> = {}): BridgeRouteMeta => ({
  auth: r.auth,
  queryToken: !!r.queryToken,
  errors: r.errors ?? 'text',
  role,
  ...extra,
})
/** The matched route's meta; none before routing (the Host check) or on the catch-all. */
const metaOf = (event: H3Event) => event.context.matchedRoute?.meta as BridgeRouteMeta | undefined

/** A JSON route without a body schema reads the body (it must be JSON) and hands the handler {}. */
const NO_BODY = v.fallback(v.object({}), {})

/** A WebSocket route's crossws hooks for one upgrade request (core/websockets.ts). */
export type WebSocketHooksFor = (route: MountedWs) => (event: H3Event) => Partial<WebSocketHooks> | Promise<Partial<WebSocketHooks>>

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
  /** The Host header check (DNS rebinding), before any route. */
  hosts: HostCheck
  /** The hooks of each manifest WebSocket, declared beside the HTTP routes. */
  websocket: WebSocketHooksFor
}

/**
 * The h3 app, one routing table for the manifests' HTTP routes and WebSockets. Cross-cutting
 * work runs in h3's hooks: the app's `onRequest` refuses a foreign Host before routing, its
 * `onResponse` writes the audit line of every write; as global middleware, compression on the
 * way out (`onResponse`), the mapping of what a route threw to its one-line answer (`onError`),
 * and CORS. Each route's own middleware checks auth before validation or any work; its handler
 * reads and validates the query and body. Other methods on a route's path get 405, a plain GET on
 * a WebSocket path 426, anything else the page catch-all.
 */
export function createHttpApp(loaded: LoadedPlugins, deps: HttpDeps): H3 {
  const { config, devices, log, plugin, hosts } = deps
  /** What was thrown, as the answer in the matched route's error style (text before routing). */
  const answerError = (error: HTTPError, event: H3Event) =>
    // h3 wraps anything else in an HTTPError marked unhandled; the original says what happened.
    errorToResponse(error.unhandled ? error.cause : error, metaOf(event)?.errors ?? 'text', log, `${methodOf(event)} ${event.url.pathname}`)

  const app = new H3({
    // errorToResponse logs what it answers with 500 in one line; h3 would print the stack too.
    silent: true,
    onRequest(event) {
      event.context.started = performance.now()
      const host = event.req.headers.get('host')
      if (hosts.malformed(host)) throw new HttpError(400, hosts.badHost)
      if (!hosts.allows(host)) throw new HttpError(421, hosts.refusal(host!))
    },
    // What fails before routing (the Host check); a route's errors are answered by the middleware below.
    onError: answerError,
    onResponse(res, event) {
      auditLine(res, event, deps)
      const took = (performance.now() - (event.context.started ?? performance.now())).toFixed(1)
      log.debug(`${event.req.method} ${event.url.pathname}${event.context.upgrade ? ' (upgrade)' : ''} → ${res.status} in ${took} ms`)
    },
  })
  // Outermost, so every answer (an error's too) leaves compressed when the client takes it.
  app.use(onResponse((res, event) => compressResponse(event.req, res)))
  // Inside compression and outside CORS: a thrown error becomes the route's answer, and the
  // headers CORS staged for error answers reach it.
  app.use(onError(answerError))
  // An upgrade reaches only a WebSocket route; on any other path no handler runs (core/websockets.ts answers 404).
  app.use((event) => (event.context.upgrade && !metaOf(event)?.websocket ? text('not found', 404) : undefined))
  app.use(createCors(config.transport.allowed_origins))

  const auth: Middleware = (event, next) => {
    const meta = metaOf(event)!
    const who = authenticate(meta.auth, credentialOf(event.req, event.url, meta.queryToken), config.admin_token, devices)
    if (!who) {
      event.context.refused = {}
      return unauthorized()
    }
    // The route's role, from its manifest: a viewer is refused every write before any work.
    if (!roleAllows(who, meta.role)) {
      event.context.refused = { who }
      return errorResponse(403, roleRefusal(who, meta.role), meta.errors)
    }
    if (who.kind !== 'none') deps.guard()?.authenticated(nodeSocketOf(event.req))
    event.context.auth = who
    return next()
  }

  for (const [path, byMethod] of loaded.routes) {
    for (const route of byMethod.values()) {
      const handler = routeHandler(route, deps)
      const meta = bridgeMeta(route, routeRole(route), { route })
      for (const method of route.method === 'GET' ? (['GET', 'HEAD'] as const) : [route.method]) app.on(method, path, handler, { meta, middleware: [auth] })
    }
    const allow = [...byMethod.keys()].join(', ')
    // The catch-all serves pages; any other method on an unknown path is a wrong path, not a wrong
    // method (a typo'd POST /aprove should say so).
    if (path !== '/**')
      app.all(path, (event) => errorResponse(405, `${allow} only`, metaOf(event)!.errors, { allow }), { meta: bridgeMeta([...byMethod.values()][0]), middleware: [auth] })
  }
  app.all('/**', () => text('not found', 404))

  for (const [path, ws] of loaded.websockets) {
    // The upgrade authenticates in its own hook (core/websockets.ts), between which and `open` a revocation must be seen.
    const upgrade = defineWebSocketHandler(deps.websocket(ws))
    // A plain GET on a WebSocket path: auth, then the route's own verdict (404 …), then 426.
    const plain = defineHandler({
      middleware: [auth],
      handler: async (event) => {
        const accepted = await acceptWs(ws, plugin(ws.plugin), event.req, event.url, event.context.auth!)
        if (accepted instanceof Response) return accepted
        return text('upgrade required: this is a WebSocket route', 426, { upgrade: 'websocket' })
      },
    })
    app.all(path, (event) => (event.context.upgrade ? upgrade(event) : plain(event)), { meta: bridgeMeta({ ...ws, role: undefined }, 'viewer', { websocket: true }) })
  }
  return app
}

/** The request's method as routes see it: HEAD is a GET without the body. */
const methodOf = (event: H3Event) => (event.req.method === 'HEAD' ? 'GET' : event.req.method)

/**
 * A manifest route's handler: the JSON body read (415 for another type, its size capped, within
 * its deadlines), the query and then the body validated by their schemas, and the handler's value
 * as a Response. What it throws is answered by the app's error hook.
 */
function routeHandler(route: MountedRoute, { plugin, limits }: HttpDeps) {
  const readsJson = route.method !== 'GET' && route.bodyType !== 'raw'
  const onError = ({ issues }: { issues: Issues }) => invalidInput(issues, route.invalid)
  const querySchema = route.query && lastValues(route.query)
  const bodySchema = route.body ?? NO_BODY
  return async (event: H3Event) => {
    const data = readsJson ? await readJson(event.req, limits, route.invalid) : undefined
    // Only declared parameters reach a handler, so the API document lists all it reads.
    const query = querySchema ? await getValidatedQuery(event, querySchema, { onError }) : {}
    const bad = controlInParams(query)
    if (bad) throw new HttpError(400, bad)
    let body: unknown
    if (readsJson) {
      const checked = await v.safeParseAsync(bodySchema, data)
      if (!checked.success) throw invalidInput(checked.issues, route.invalid)
      body = checked.output
    }
    event.context.input = { query, body }
    const { ctx, state } = plugin(route.plugin)
    return asResponse(await route.handler({ event, query, body, auth: event.context.auth!, ctx, state }))
  }
}

/**
 * The audit line of a write (app `onResponse`, with the answer's status): a manifest route's own
 * (the target its audit hook names), or a refused credential or role on any write, which the
 * audit log counts per route and caller and writes once a minute (storage/audit-log.ts).
 */
function auditLine(res: Response, event: H3Event, { audit }: HttpDeps): void {
  const meta = metaOf(event)
  const method = event.req.method
  if (!meta || method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return
  const { refused, auth, input } = event.context
  if (refused) {
    audit.record({ ts: Date.now(), device: auditActor(refused.who), route: `${method} ${event.url.pathname}`, status: res.status, from: getRequestIP(event) })
    return
  }
  const route = meta.route
  if (!route || route.audit === false) return
  let fields
  try {
    fields = input && route.audit?.(input)
  } catch {
    fields = undefined
  }
  audit.record({
    ts: Date.now(),
    device: auditActor(auth),
    from: getRequestIP(event),
    route: `${method} ${event.url.pathname}`,
    ...fields,
    status: res.status,
    ...(route.bodyType === 'raw' ? { bytes: Number(event.req.headers.get('content-length') ?? 0) } : {}),
  })
}

function asResponse(out: unknown): Response {
  if (out instanceof Response) return out
  // h3's own answers (serveStatic's): h3 adds the headers they staged on the event.
  if (out instanceof HTTPResponse) return new Response(out.body, { status: out.status ?? 200, headers: out.headers })
  if (out === undefined || out === null) return new Response(null, { status: 204 })
  return typeof out === 'string' ? text(out) : json(out)
}

/** Validates a WebSocket route's query, then asks the route whether to accept. */
export async function acceptWs(route: MountedWs, running: RunningPlugin, request: Request, url: URL, auth: AuthInfo) {
  const query = route.query ? await getValidatedQuery({ req: request } as HTTPEvent, lastValues(route.query), { onError: ({ issues }) => invalidInput(issues) }) : {}
  const bad = controlInParams(query)
  if (bad) throw new HttpError(400, bad)
  const { ctx, state } = running
  return route.accept ? route.accept({ request, url, query, auth, ctx, state }) : undefined
}

/**
 * A query schema as h3's validate takes it, where a repeated parameter's last value counts: h3
 * hands repeats over as an array, which no route's schema takes.
 */
const lastValues = <S extends v.GenericSchema>(schema: S) =>
  v.pipe(
    v.unknown(),
    v.transform((q) => Object.fromEntries(Object.entries(q as object).map(([k, x]) => [k, Array.isArray(x) ? x.at(-1) : x]))),
    schema,
  )

/** Standard Schema issues, as h3's validate and valibot report them. */
type Issues = ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: unknown }> }>

/** The one-line 400 for input its schema refused (h3's validate hands the issues here). */
function invalidInput(issues: Issues, invalid?: string): HttpError {
  // A control character is named as such even where the route has one fixed message.
  const control = issues.find((i) => i.message.endsWith('control characters are not allowed'))
  if (control) return new HttpError(400, control.message)
  if (invalid) return new HttpError(400, invalid)
  const issue = issues[0]
  const path = issue.path?.map((p) => String(typeof p === 'object' ? p.key : p)).join('.')
  // Schemas may already name the field in their message ("code: want a string", "want ?pane=").
  const named = !path || issue.message.startsWith(`${path}:`) || issue.message.startsWith(`${path} `) || issue.message.includes(`?${path}=`)
  return new HttpError(400, named ? issue.message : `${path}: ${issue.message}`)
}

/**
 * A JSON route's body: 415 for a body that is not JSON, then read with its size cap and
 * deadlines (core/body.ts) and parsed; a blank body reads as {}.
 */
async function readJson(req: Request, limits: ServerLimits, invalid?: string): Promise<unknown> {
  if (hasBody(req.headers) && !isJsonContentType(req.headers.get('content-type'))) throw new HttpError(415, 'want Content-Type: application/json')
  const raw = await readBodyText(req, { idleMs: limits.body_idle_ms, totalMs: limits.json_body_ms, max: MAX_JSON_BODY })
  try {
    return raw.trim() ? JSON.parse(raw) : {}
  } catch {
    throw new HttpError(400, invalid ?? 'body is not valid JSON')
  }
}

/** Maps what a handler threw to a response: an HTTPError, herdr's errors, else a logged 500. */
export function errorToResponse(err: unknown, style: ErrorStyle, log: ConsolaInstance, where: string): Response {
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
    if (err.code === 'agent_blocked') return errorResponse(409, AGENT_BLOCKED, style)
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
function auditActor(auth: AuthInfo | undefined): string {
  return auth?.kind === 'device' ? auth.deviceId! : auth?.kind === 'admin' ? 'admin' : '-'
}
