import type { AuthInfo, AuthLevel } from './plugin.ts'
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
  return { kind: 'device', deviceId: d.id }
}
