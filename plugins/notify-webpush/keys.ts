import { generateKeyPairSync } from 'node:crypto'
import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../../storage/index.ts'

/**
 * The bridge's VAPID key pair (RFC 8292), made on first start and kept in
 * `webpush-vapid.json` in the data dir (0600, written atomically). Browsers bind their push
 * subscriptions to the public key, so it is never replaced once made: a broken file is an error
 * naming it, not a new key that would silently orphan every subscription.
 */
export interface VapidKeys {
  publicKey: string
  privateKey: string
}

export const VAPID_FILE = 'webpush-vapid.json'

const b64urlBytes = (s: unknown): number => (typeof s === 'string' && /^[A-Za-z0-9_-]+$/.test(s) ? Buffer.from(s, 'base64url').length : -1)

export async function loadOrCreateVapidKeys(storage: Storage): Promise<{ keys: VapidKeys; created: boolean }> {
  const stored = await readJson<Record<string, unknown>>(storage, VAPID_FILE, 'web push key pair')
  if (stored) {
    if (b64urlBytes(stored.public_key) !== 65 || b64urlBytes(stored.private_key) !== 32) {
      throw new Error(`the web push key pair (${VAPID_FILE} in the data dir) is malformed; fix it, or move it away to make a new one (browsers then subscribe again)`)
    }
    return { keys: { publicKey: stored.public_key as string, privateKey: stored.private_key as string }, created: false }
  }
  const made = newKeyPair()
  await writeJson(storage, VAPID_FILE, { public_key: made.publicKey, private_key: made.privateKey, created_at: new Date().toISOString() })
  return { keys: made, created: true }
}

/**
 * A P-256 pair in the encodings VAPID uses (the public key as an uncompressed point, the private
 * scalar), both base64url. Made with node:crypto so web-push is loaded only when a message is sent.
 */
function newKeyPair(): VapidKeys {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const jwk = privateKey.export({ format: 'jwk' })
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')])
  return { publicKey: point.toString('base64url'), privateKey: jwk.d! }
}
