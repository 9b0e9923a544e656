import { wsUrl, type SavedBridge } from './bridges.ts'

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** One paired bridge's HTTP and WebSocket endpoints, with its bearer. */
export class Api {
  constructor(readonly bridge: SavedBridge) {}

  async request<T = any>(path: string, init: { method?: string; json?: unknown; body?: BodyInit; type?: string; timeoutMs?: number } = {}): Promise<T> {
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
      let msg = raw.slice(0, 300)
      try {
        msg = JSON.parse(raw).error ?? msg
      } catch {
        /* plain text */
      }
      throw new ApiError(res.status, res.status === 401 ? 'this device is no longer paired (401)' : `${res.status}: ${msg}`)
    }
    return (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(raw) : (raw as T)
  }

  /** GET /readyz: whether the bridge reaches herdr, and its one-line reason if not (herdr's socket and error only with the bearer). */
  async readiness(): Promise<{ ok: boolean; reason: string }> {
    try {
      const res = await fetch(this.bridge.url + '/readyz', {
        cache: 'no-store',
        headers: { authorization: `Bearer ${this.bridge.bearer}` },
        signal: AbortSignal.timeout(10_000),
      })
      const body = await res.json().catch(() => ({}))
      return { ok: res.ok, reason: typeof body?.reason === 'string' && body.reason ? body.reason : `GET /readyz answered ${res.status}` }
    } catch {
      return { ok: false, reason: `${this.bridge.name || this.bridge.url} is unreachable` }
    }
  }

  get = <T = any>(path: string) => this.request<T>(path)
  post = <T = any>(path: string, json: unknown) => this.request<T>(path, { method: 'POST', json })

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
