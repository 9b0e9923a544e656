/**
 * Streams a request body into a temp file, hashing as it goes and stopping at the first byte
 * over the cap (the rest is never read, so never buffered).
 */
import { open, unlink } from 'node:fs/promises'
import { createHash, randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import type { HeldDir } from '../../lib/open-confined.ts'
import { HEAD_BYTES } from './sniff.ts'
import { bodyChunks } from '../../core/body.ts'

export interface Received {
  /** Reaches the temp file through the held drop directory. */
  tempPath: string
  bytes: number
  sha256: string
  head: Buffer
}

export class OverCap extends Error {}

export function tempName(): string {
  return `.upload-${randomBytes(8).toString('hex')}.part`
}

/**
 * Resolves with the written temp file, created in the held directory and never through a final
 * symlink; on any failure the temp file is gone.
 */
export async function receiveToFile(body: ReadableStream<Uint8Array> | null, dir: HeldDir, cap: number, idleMs: number): Promise<Received> {
  const tempPath = dir.at(tempName())
  const fh = await open(tempPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  const hash = createHash('sha256')
  const headParts: Buffer[] = []
  let headLen = 0
  let bytes = 0
  let ok = false
  try {
    // Nothing is written into a drop directory moved away from its place since it was held.
    await dir.verify()
    for await (const value of bodyChunks(body, { idleMs, max: cap, tooLarge: () => new OverCap() })) {
      if (!value.length) continue
      bytes += value.length
      hash.update(value)
      if (headLen < HEAD_BYTES) {
        headParts.push(Buffer.from(value.subarray(0, HEAD_BYTES - headLen)))
        headLen += Math.min(value.length, HEAD_BYTES - headLen)
      }
      for (let off = 0; off < value.length;) off += (await fh.write(value, off, value.length - off)).bytesWritten
    }
    ok = true
  } finally {
    await fh.close()
    if (!ok) await unlink(tempPath).catch(() => {})
  }
  return { tempPath, bytes, sha256: hash.digest('hex'), head: Buffer.concat(headParts) }
}
