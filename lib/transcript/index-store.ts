/**
 * Line indexes of transcript files kept on disk, so a restarted bridge opens a large file
 * without counting it again. An index is named by the file's identity (device, inode and a hash
 * of its first block) and the reader's key; it is trusted only when its header matches, its size
 * adds up and the file still ends a line where the index stopped. Anything else is deleted and
 * rebuilt. Files are written whole to a temp name and renamed (never half-written).
 */
import { createHash } from 'node:crypto'
import { mkdir, open, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { Stats } from 'node:fs'
import { tempPathFor } from '../atomic-file.ts'
import { parseJsonRecord } from './entry.ts'

const MAGIC = 'HBTI'
const VERSION = 1
/** Bytes hashed to tell a recreated file from the one indexed (inodes are reused). */
export const HEAD_BYTES = 4096

export interface FileIdentity {
  dev: number
  ino: number
  /** sha256 of the first min(size, HEAD_BYTES) bytes, and how many bytes that was. */
  head: string
  headLen: number
}

/** The state of a TranscriptFile's index for lines [0, indexed). */
export interface IndexImage {
  indexed: number
  count: number
  n: number
  offs: Float64Array
  lens: Uint32Array
  cum: Uint32Array
}

export async function identify(fh: FileHandle, st: Stats): Promise<FileIdentity> {
  const len = Math.min(st.size, HEAD_BYTES)
  const buf = Buffer.alloc(len)
  if (len) await fh.read(buf, 0, len, 0)
  return { dev: st.dev, ino: st.ino, head: createHash('sha256').update(buf).digest('hex'), headLen: len }
}

const fileName = (key: string, id: FileIdentity) => createHash('sha256').update(`${key}\0${id.dev}:${id.ino}:${id.headLen}:${id.head}`).digest('hex').slice(0, 40) + '.idx'

/** The stored index for this file, or null (missing, stale or corrupt: corrupt ones are removed). */
export async function loadIndex(dir: string, key: string, id: FileIdentity, fh: FileHandle, size: number): Promise<IndexImage | null> {
  const path = join(dir, fileName(key, id))
  let raw: Buffer
  try {
    raw = await readFile(path)
  } catch {
    return null
  }
  const image = decode(raw, key, id)
  if (!image || image.indexed > size) {
    await rm(path, { force: true }).catch(() => {})
    return null
  }
  // The file must still hold lines where the index says (a rewrite in place would not): the end
  // of the indexed part and a sample of line boundaries across it are checked.
  if (!(await boundariesHold(fh, image))) {
    await rm(path, { force: true }).catch(() => {})
    return null
  }
  return image
}

/** Stores the index; the image is copied before this returns its promise (the caller may go on indexing). */
const SAMPLES = 32

async function boundariesHold(fh: FileHandle, im: IndexImage): Promise<boolean> {
  const at: number[] = []
  if (im.indexed > 0) at.push(im.indexed - 1)
  for (let k = 0; k < SAMPLES && im.n > 0; k++) {
    const i = Math.floor((k * (im.n - 1)) / (SAMPLES - 1))
    if (im.offs[i] > 0) at.push(im.offs[i] - 1)
    at.push(im.offs[i] + im.lens[i])
  }
  const b = Buffer.alloc(1)
  for (const pos of new Set(at)) {
    const { bytesRead } = await fh.read(b, 0, 1, pos)
    if (bytesRead !== 1 || b[0] !== 10) return false
  }
  return true
}

export async function saveIndex(dir: string, key: string, id: FileIdentity, image: IndexImage): Promise<void> {
  const data = encode(key, id, image)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const path = join(dir, fileName(key, id))
  // The data dir's temp name, so an index write cut short is swept at the next start.
  const tmp = tempPathFor(path)
  try {
    const fh = await open(tmp, 'w', 0o600)
    try {
      await writeFile(fh, data)
      await fh.sync()
    } finally {
      await fh.close()
    }
    await rename(tmp, path)
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {})
    throw err
  }
}

function encode(key: string, id: FileIdentity, im: IndexImage): Buffer {
  const header = Buffer.from(JSON.stringify({ key, dev: id.dev, ino: id.ino, head: id.head, headLen: id.headLen, indexed: im.indexed, count: im.count, n: im.n }))
  const pre = 12 + header.length
  const pad = (8 - (pre % 8)) % 8
  const out = Buffer.alloc(pre + pad + im.n * 16)
  out.write(MAGIC, 0, 'latin1')
  out.writeUInt32LE(VERSION, 4)
  out.writeUInt32LE(header.length, 8)
  header.copy(out, 12)
  let at = pre + pad
  for (const arr of [im.offs, im.lens, im.cum]) {
    const bytes = Buffer.from(arr.buffer, arr.byteOffset, im.n * arr.BYTES_PER_ELEMENT)
    bytes.copy(out, at)
    at += bytes.length
  }
  return out
}

function decode(raw: Buffer, key: string, id: FileIdentity): IndexImage | null {
  if (raw.length < 12 || raw.toString('latin1', 0, 4) !== MAGIC || raw.readUInt32LE(4) !== VERSION) return null
  const hlen = raw.readUInt32LE(8)
  if (12 + hlen > raw.length) return null
  const h = parseJsonRecord(raw.toString('utf8', 12, 12 + hlen))
  if (h?.key !== key || h.dev !== id.dev || h.ino !== id.ino || h.head !== id.head || h.headLen !== id.headLen) return null
  const ok = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0
  const { indexed, count, n } = h
  if (!ok(indexed) || !ok(count) || !ok(n)) return null
  const pre = 12 + hlen
  const start = pre + ((8 - (pre % 8)) % 8)
  if (raw.length !== start + n * 16) return null
  // Copied out: typed arrays over the read buffer would need its alignment and keep it alive.
  const offs = new Float64Array(Math.max(n, 1024))
  const lens = new Uint32Array(Math.max(n, 1024))
  const cum = new Uint32Array(Math.max(n, 1024))
  Buffer.from(offs.buffer).set(raw.subarray(start, start + n * 8))
  Buffer.from(lens.buffer).set(raw.subarray(start + n * 8, start + n * 12))
  Buffer.from(cum.buffer).set(raw.subarray(start + n * 12, start + n * 16))
  if (n > 0) {
    const last = n - 1
    if (offs[last] + lens[last] > indexed || cum[last] > count || (n > 1 && offs[last] <= offs[last - 1])) return null
  } else if (count !== 0) return null
  return { indexed, count, n, offs, lens, cum }
}
