/** Paired bridges, kept in localStorage: `{base url, bearer}` plus what the bridge told us. */
export interface SavedBridge {
  /** Local key: stable for this browser, used in URLs. */
  key: string
  url: string
  bearer: string
  name: string
  server_id: string
  device_id: string
}

const STORE = 'herdr-bridge.bridges.v1'

export function loadBridges(storage: Pick<Storage, 'getItem'> = localStorage): SavedBridge[] {
  try {
    const raw = JSON.parse(storage.getItem(STORE) ?? '[]')
    return Array.isArray(raw) ? raw.filter((b) => b && typeof b.url === 'string' && typeof b.bearer === 'string' && typeof b.key === 'string') : []
  } catch {
    return []
  }
}

export function saveBridges(list: SavedBridge[], storage: Pick<Storage, 'setItem'> = localStorage): void {
  storage.setItem(STORE, JSON.stringify(list))
}

/** Adds a bridge, replacing one with the same server_id or base URL (re-pairing). */
export function upsertBridge(list: SavedBridge[], b: Omit<SavedBridge, 'key'>): SavedBridge[] {
  const same = list.find((x) => (b.server_id && x.server_id === b.server_id) || x.url === b.url)
  const key = same?.key ?? nextKey(list)
  const entry = { ...b, key }
  return same ? list.map((x) => (x === same ? entry : x)) : [...list, entry]
}

function nextKey(list: SavedBridge[]): string {
  for (let i = 1; ; i++) if (!list.some((x) => x.key === `b${i}`)) return `b${i}`
}

/** `https://host:8080/` → `https://host:8080`; refuses anything that is not http(s). */
export function normalizeBaseUrl(input: string): string | null {
  let u: URL
  try {
    u = new URL(input.trim())
  } catch {
    return null
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`
}

/** WebSocket routes sit at the server root: a base path is dropped for WS, as the mobile app drops it. */
export function wsUrl(base: string, path: string, params: Record<string, string>): string {
  const u = new URL(base)
  const q = new URLSearchParams(params).toString()
  return `${u.protocol === 'https:' ? 'wss' : 'ws'}://${u.host}${path}?${q}`
}
