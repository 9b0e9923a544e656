import { defineRoute, getRequestIP, getValidatedQuery, H3, HTTPError, HTTPResponse, type H3Event, type HTTPEvent, type Middleware } from 'h3'
import type { ConsolaInstance } from 'consola'
import * as v from 'valibot'
import type { BridgeConfig } from './config.ts'
import type { LoadedPlugins, MountedRoute, MountedWs, RunningPlugin } from './loader.ts'
import type { AuthInfo, ErrorStyle, Role, RouteDef } from './plugin.ts'
import type { DeviceStore } from '../storage/devices.ts'
import type { createAuditLog } from '../storage/audit-log.ts'
import type { ServerGuard, ServerLimits } from './limits.ts'
import { authenticate, credentialOf, roleAllows, roleRefusal, routeRole } from './auth.ts'
import { errorResponse, HttpError, json, text, unauthorized } from './respond.ts'
import { AGENT_BLOCKED, HerdrError } from './herdr/index.ts'
import { hasBody, isJsonContentType } from './content-type.ts'
import { createCors } from './cors.ts'
import { RESOURCE_CODES } from '../lib/exec.ts'
import { controlInParams } from '../lib/strings.ts'
import { readBodyText } from './body.ts'

const MAX_JSON_BODY = 1024 * 1024

declare module 'h3' {
  interface H3EventContext {
    /** The caller, once the route's auth middleware accepted its credential. */
    auth?: AuthInfo
    /** The query and body once both passed validation, for the route's audit hook. */
    input?: { query: unknown; body: unknown }
  }
}

/** What the bridge keeps in an h3 route's `meta`: who may call it (`?token=` too? which device role?) and how its errors read. */
type BridgeRouteMeta = Required<Pick<RouteDef, 'auth' | 'queryToken' | 'errors' | 'role'>>

const bridgeMeta = (r: Partial<BridgeRouteMeta> & Pick<RouteDef, 'auth'>, role: Role = 'viewer'): BridgeRouteMeta => ({
  auth: r.auth,
  queryToken: !!r.queryToken,
  errors: r.errors ?? 'text',
  role,
})
const metaOf = (event: H3Event) => event.context.matchedRoute!.meta as unknown as BridgeRouteMeta

/** A JSON route without a body schema reads the body (it must be JSON) and hands the handler {}. */
const NO_BODY = v.fallback(v.object({}), {})

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
 * The h3 app: CORS first, then each manifest route as an h3 route whose middleware checks auth
 * (before validation or any work) and writes the answer and the audit line; h3 validates the
 * body, `getValidatedQuery` the query. Other methods on a route's path get 405, a plain GET on a
 * WebSocket path 426, anything else the page catch-all.
 */
export function createHttpApp(loaded: LoadedPlugins, deps: HttpDeps): H3 {
  const { config, devices, log, plugin } = deps
  const app = new H3()
  app.use(createCors(config.transport.allowed_origins))

  const auth: Middleware = (event, next) => {
    const meta = metaOf(event)
    const who = authenticate(meta.auth, credentialOf(event.req, event.url, meta.queryToken), config.admin_token, devices)
    if (!who) return auditRefusal(event, deps, unauthorized())
    // The route's role, from its manifest: a viewer is refused every write before any work.
    if (!roleAllows(who, meta.role)) return auditRefusal(event, deps, errorResponse(403, roleRefusal(who, meta.role), meta.errors), who)
    if (who.kind !== 'none') deps.guard()?.authenticated(nodeSocketOf(event.req))
    event.context.auth = who
    return next()
  }

  for (const [path, byMethod] of loaded.routes) {
    for (const route of byMethod.values()) {
      const readsJson = route.method !== 'GET' && route.bodyType !== 'raw'
      const onError = ({ issues }: { issues: Issues }) => invalidInput(issues, route.invalid)
      const querySchema = route.query && lastValues(route.query)
      for (const method of route.method === 'GET' ? (['GET', 'HEAD'] as const) : [route.method])
        app.register(
          defineRoute({
            method,
            route: path,
            meta: bridgeMeta(route, routeRole(route)),
            middleware: [auth, answer(route, deps), ...(readsJson ? [jsonReader(deps.limits, route.invalid)] : [])],
            validate: readsJson ? { body: route.body ?? NO_BODY, onError } : undefined,
            handler: async (event) => {
              // Only declared parameters reach a handler, so the API document lists all it reads.
              const query = querySchema ? await getValidatedQuery(event, querySchema, { onError }) : {}
              const bad = controlInParams(query)
              if (bad) throw new HttpError(400, bad)
              const body: unknown = readsJson ? await event.req.json() : undefined
              event.context.input = { query, body }
              const { ctx, state } = plugin(route.plugin)
              return route.handler({ event, query, body, auth: event.context.auth!, ctx, state })
            },
          }),
        )
    }
    const allow = [...byMethod.keys()].join(', ')
    // The catch-all serves pages; any other method on an unknown path is a wrong path, not a wrong
    // method (a typo'd POST /aprove should say so).
    if (path !== '/**')
      app.all(path, (event) => errorResponse(405, `${allow} only`, metaOf(event).errors, { allow }), { meta: bridgeMeta([...byMethod.values()][0]), middleware: [auth] })
  }
  app.all('/**', () => text('not found', 404))

  for (const [path, ws] of loaded.websockets) {
    // A plain GET on a WebSocket path: auth, then the route's own verdict (404 …), then 426.
    app.all(
      path,
      async (event) => {
        try {
          const accepted = await acceptWs(ws, plugin(ws.plugin), event.req, event.url, event.context.auth!)
          if (accepted instanceof Response) return accepted
        } catch (err) {
          return errorToResponse(err, 'text', log, `GET ${event.url.pathname}`)
        }
        return text('upgrade required: this is a WebSocket route', 426, { upgrade: 'websocket' })
      },
      { meta: bridgeMeta({ ...ws, role: undefined }), middleware: [auth] },
    )
  }
  return app
}

/** Route middleware: the handler's value (or what it threw) as a Response, and the audit line. */
function answer(route: MountedRoute, { audit, log }: HttpDeps): Middleware {
  return async (event, next) => {
    const method = event.req.method === 'HEAD' ? 'GET' : event.req.method
    let res: Response
    try {
      res = asResponse(await next())
    } catch (err) {
      res = errorToResponse(err, route.errors ?? 'text', log, `${method} ${event.url.pathname}`)
    }
    if (method !== 'GET' && route.audit !== false) {
      let fields
      try {
        fields = event.context.input && route.audit?.(event.context.input)
      } catch {
        fields = undefined
      }
      audit.record({
        ts: Date.now(),
        device: auditActor(event.context.auth),
        from: getRequestIP(event),
        route: `${method} ${event.url.pathname}`,
        ...fields,
        status: res.status,
        ...(route.bodyType === 'raw' ? { bytes: Number(event.req.headers.get('content-length') ?? 0) } : {}),
      })
    }
    return res
  }
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

/** Standard Schema issues, as h3's validate reports them. */
type Issues = ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> }>

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
 * Route middleware for JSON routes, before h3's validate: 415 for a body that is not JSON, then
 * the body read with its size cap and deadlines (core/body.ts). The request's `json()`, which h3's
 * validate calls, answers what was read; a blank body reads as {}.
 */
function jsonReader(limits: ServerLimits, invalid?: string): Middleware {
  return async (event) => {
    const req = event.req
    if (hasBody(req.headers) && !isJsonContentType(req.headers.get('content-type'))) throw new HttpError(415, 'want Content-Type: application/json')
    const raw = await readBodyText(req, { idleMs: limits.body_idle_ms, totalMs: limits.json_body_ms, max: MAX_JSON_BODY })
    let data: unknown = {}
    try {
      if (raw.trim()) data = JSON.parse(raw)
    } catch {
      throw new HttpError(400, invalid ?? 'body is not valid JSON')
    }
    ;(event as { req: Request }).req = new Proxy(req, {
      get(target, key) {
        if (key === 'json') return () => Promise.resolve(data)
        const value = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
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

/**
 * A refused credential or role on a write route, for the audit log, which counts refusals per
 * route and caller and writes them once a minute (storage/audit-log.ts).
 */
function auditRefusal(event: H3Event, { audit }: HttpDeps, res: Response, who?: AuthInfo): Response {
  const method = event.req.method
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS')
    audit.record({ ts: Date.now(), device: auditActor(who), route: `${method} ${event.url.pathname}`, status: res.status, from: getRequestIP(event) })
  return res
}

/** Who, in the log: the device id, `admin`, or `-` for unauthenticated routes (pairing). */
function auditActor(auth: AuthInfo | undefined): string {
  return auth?.kind === 'device' ? auth.deviceId! : auth?.kind === 'admin' ? 'admin' : '-'
}
