import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto'

/**
 * The browser's half of Web Push, written from the RFCs with node:crypto so the tests check the
 * bridge's messages independently of the library that made them: a subscription key pair,
 * aes128gcm decryption (RFC 8188 + RFC 8291) and the VAPID JWT check (RFC 8292).
 */

export interface BrowserKeys {
  ecdh: ECDH
  p256dh: string
  auth: string
  authBytes: Buffer
}

export function browserKeys(): BrowserKeys {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  const authBytes = randomBytes(16)
  return { ecdh, p256dh: ecdh.getPublicKey().toString('base64url'), auth: authBytes.toString('base64url'), authBytes }
}

const hkdf = (salt: Buffer, ikm: Buffer, info: Buffer, len: number) => Buffer.from(hkdfSync('sha256', ikm, salt, info, len))

/** Decrypts one aes128gcm Web Push body (a single record) with the subscription's private key. */
export function decrypt(body: Buffer, keys: BrowserKeys): string {
  const salt = body.subarray(0, 16)
  const rs = body.readUInt32BE(16)
  const idlen = body[20]
  const asPublic = body.subarray(21, 21 + idlen)
  const record = body.subarray(21 + idlen)
  if (idlen !== 65 || rs < 18 || record.length > rs) throw new Error(`unexpected aes128gcm header: idlen ${idlen}, rs ${rs}, record ${record.length}`)
  const uaPublic = keys.ecdh.getPublicKey()
  const ecdhSecret = keys.ecdh.computeSecret(asPublic)
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic])
  const ikm = hkdf(keys.authBytes, ecdhSecret, keyInfo, 32)
  const cek = hkdf(salt, ikm, Buffer.from('Content-Encoding: aes128gcm\0'), 16)
  const nonce = hkdf(salt, ikm, Buffer.from('Content-Encoding: nonce\0'), 12)
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce)
  decipher.setAuthTag(record.subarray(record.length - 16))
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()])
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = plain.length - 1
  while (end >= 0 && plain[end] === 0) end--
  if (plain[end] !== 2) throw new Error('no last-record delimiter')
  return plain.subarray(0, end).toString('utf8')
}

/** Parses `vapid t=<jwt>, k=<key>`, verifies the ES256 signature with k, returns the claims and k. */
export function checkVapid(authorization: string | undefined): { claims: Record<string, unknown>; header: Record<string, unknown>; k: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '')
  if (!m) throw new Error(`not a VAPID Authorization header: ${authorization}`)
  const [jwt, k] = [m[1], m[2]]
  const [h, p, sig] = jwt.split('.')
  const raw = Buffer.from(k, 'base64url')
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') }, format: 'jwk' })
  const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'))
  if (!ok) throw new Error('VAPID JWT signature does not verify')
  return { header: JSON.parse(Buffer.from(h, 'base64url').toString()), claims: JSON.parse(Buffer.from(p, 'base64url').toString()), k }
}
