import { wsUrl, type SavedBridge } from './bridges.ts'
// Types only (erased from the bundle): generated from the routes' schemas by scripts/api-types.mjs.
import type { GetResponses, PostBodies, PostResponses } from './api-types.ts'

export type { GetResponses, PostBodies, PostResponses }

type GetPath = keyof GetResponses
type PostPath = keyof PostResponses

/**
 * The route a called path names (`/diff?pane=…` → `/diff`, `` `/ports${query}` `` → `/ports`),
 * so each call is typed by its route's schemas.
 */
type RouteOf<S extends string, K extends string> = S extends `${infer P}?${string}` ? Extract<P, K> : S extends K ? S : { [R in K]: S extends `${R}${string}` ? R : never }[K]

/** A JSON object's `error` field, when the text is one. */
function errorField(raw: string): string | undefined {
  try {
    const j: unknown = JSON.parse(raw)
    return j && typeof j === 'object' && 'error' in j && typeof j.error === 'string' ? j.error : undefined
  } catch {
    return undefined // plain text
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** The HTTP status a failed call carries (0: unreachable); undefined for any other error. */
export const errStatus = (err: unknown): number | undefined => (err instanceof ApiError ? err.status : undefined)

/** One paired bridge's HTTP and WebSocket endpoints, with its bearer. */
export class Api {
  constructor(readonly bridge: SavedBridge) {}

  /** Any call (an upload, a longer timeout); the caller names the answer's type, `unknown` unless it does. */
  async request<T = unknown>(path: string, init: { method?: string; json?: unknown; body?: BodyInit; type?: string; timeoutMs?: number } = {}): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.bridge.bearer}`, accept: 'application/json' }
    let body = init.body
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(init.json)
    } else if (init.type) headers['content-type'] = init.type
    let res: Response
    try {
      res = await fetch(this.bridge.url + path, {
        method: init.method ?? (body !== undefined ? 'POST' : 'GET'),
        headers,
        body,
        signal: AbortSignal.timeout(init.timeoutMs ?? 15_000),
      })
    } catch (err) {
      throw new ApiError(0, `${this.bridge.name || this.bridge.url} is unreachable`)
    }
    const raw = await res.text()
    if (!res.ok) {
      const msg = errorField(raw) ?? raw.slice(0, 300)
      throw new ApiError(res.status, res.status === 401 ? 'this device is no longer paired (401)' : `${res.status}: ${msg}`)
    }
    return ((res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(raw) : raw) as T
  }

  /** GET /readyz: whether the bridge reaches herdr, and its one-line reason if not (herdr's socket and error only with the bearer). */
  async readiness(): Promise<{ ok: boolean; reason: string }> {
    try {
      const res = await fetch(this.bridge.url + '/readyz', {
        cache: 'no-store',
        headers: { authorization: `Bearer ${this.bridge.bearer}` },
        signal: AbortSignal.timeout(10_000),
      })
      const body = (await res.json().catch(() => ({}))) as Partial<GetResponses['/readyz']>
      return { ok: res.ok, reason: typeof body?.reason === 'string' && body.reason ? body.reason : `GET /readyz answered ${res.status}` }
    } catch {
      return { ok: false, reason: `${this.bridge.name || this.bridge.url} is unreachable` }
    }
  }

  /** GET a JSON route: the answer has the type of the route's response schema. */
  get<S extends `${GetPath}${string}`>(path: S): Promise<GetResponses[RouteOf<S, GetPath>]> {
    return this.request(path)
  }

  /** POST to a JSON route: the body and the answer have the types of the route's schemas. */
  post<S extends `${PostPath}${string}`>(path: S, json: PostBodies[RouteOf<S, PostPath>]): Promise<PostResponses[RouteOf<S, PostPath>]>
  /** POST /herdr: the result is herdr's own for the method called, so the caller names its type. */
  post<T extends { result: unknown }>(path: '/herdr', json: PostBodies['/herdr']): Promise<T>
  post(path: string, json: unknown): Promise<unknown> {
    return this.request(path, { method: 'POST', json })
  }

  ws(path: string, params: Record<string, string> = {}): string {
    return wsUrl(this.bridge.url, path, { ...params, token: this.bridge.bearer })
  }
}

/** POST /pair without a bearer. */
export async function pair(base: string, code: string, deviceName: string): Promise<{ id: string; bearer: string; name: string; server_id?: string; server_name?: string }> {
  let res: Response
  try {
    res = await fetch(base + '/pair', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, device_name: deviceName }),
      signal: AbortSignal.timeout(10_000),
    })
  } catch {
    throw new ApiError(0, `cannot reach ${base} (is the address right, and does the bridge allow this page's origin?)`)
  }
  if (res.status === 403) throw new ApiError(403, 'that code is expired, already used or wrong: run `bridge pair` for a new one')
  if (!res.ok) throw new ApiError(res.status, `pairing failed: ${res.status} ${(await res.text()).slice(0, 200)}`)
  const body = await res.json()
  if (typeof body?.bearer !== 'string' || !body.bearer) throw new ApiError(502, 'the bridge did not return a token')
  return body
}
