/** The VAPID public key as the Push API wants it, and whether a subscription was made with it. */

export function keyBytes(b64url: string): Uint8Array<ArrayBuffer> {
  const b64 = b64url.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((b64url.length + 3) % 4)
  const bin = atob(b64)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}

/** True when `current` (a subscription's applicationServerKey) is the same key as `b64url`. */
export function sameKey(current: ArrayBuffer | null | undefined, b64url: string): boolean {
  if (!current) return false
  const a = new Uint8Array(current)
  const b = keyBytes(b64url)
  return a.length === b.length && a.every((x, i) => x === b[i])
}

/** A valid key is 65 bytes, an uncompressed P-256 point (first byte 4). */
export function isVapidKey(v: unknown): v is string {
  if (typeof v !== 'string' || !/^[A-Za-z0-9_-]+=*$/.test(v)) return false
  try {
    const b = keyBytes(v.replace(/=+$/, ''))
    return b.length === 65 && b[0] === 4
  } catch {
    return false
  }
}
