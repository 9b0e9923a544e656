import type { AuthInfo, AuthLevel, Role, RouteDef, WsRouteDef } from './plugin.ts'
import { ROLES } from './roles.ts'
import type { DeviceStore } from '../storage/devices.ts'
import { safeEqual } from './tokens.ts'

/** Reads the bearer from the Authorization header, or from `?token=` where the route allows it. */
export function credentialOf(request: Request, url: URL, queryToken: boolean): string {
  const h = request.headers.get('authorization') ?? ''
  const m = /^Bearer\s+(.+)$/i.exec(h.trim())
  if (m) return m[1].trim()
  return queryToken ? (url.searchParams.get('token') ?? '') : ''
}

/**
 * Checks a credential against the level the manifest asks for. `null` means refuse with 401.
 * The admin token is accepted wherever a device bearer is.
 */
export function authenticate(level: AuthLevel, credential: string, adminToken: string, devices: DeviceStore): AuthInfo | null {
  if (level === 'none' || level === 'pairing') return { kind: 'none' }
  if (!credential) return null
  if (safeEqual(credential, adminToken)) return { kind: 'admin' }
  if (level === 'admin') return null
  const d = devices.byBearer(credential)
  if (!d) return null
  devices.touch(d.id)
  return { kind: 'device', deviceId: d.id, role: d.role }
}

/** The role a route's manifest asks for: stated, else `viewer` for reads (GET) and `default` for writes. */
export function routeRole(route: Pick<RouteDef, 'method' | 'role'>): Role {
  return route.role ?? (route.method === 'GET' ? 'viewer' : 'default')
}

/** The role a WebSocket asks for, given the request's query; `viewer` when the manifest names none. */
export function socketRole(route: Pick<WsRouteDef, 'role'>, query: URLSearchParams): Role {
  return typeof route.role === 'function' ? route.role(query) : (route.role ?? 'viewer')
}

/** Whether the caller may use a route needing `role`: the admin token and unauthenticated routes always. */
export function roleAllows(who: AuthInfo, role: Role): boolean {
  if (who.kind !== 'device') return true
  return ROLES.indexOf(who.role ?? 'default') >= ROLES.indexOf(role)
}

/** The one-line 403 body for a device whose role is below the route's. */
export function roleRefusal(who: AuthInfo, role: Role): string {
  if (role === 'owner') return 'forbidden: only an owner device may do this (promote one with `bridge devices role <id> owner`)'
  return `forbidden: this device is a ${who.role ?? 'default'} and may only watch`
}
