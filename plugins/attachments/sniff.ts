/**
 * Decides an upload's type from its bytes alone. Images by magic bytes; pdf by magic bytes;
 * docx/pptx by the zip's central directory (entry names only: nothing is ever inflated, so a
 * zip bomb costs one directory read); text by reading the whole upload as UTF-8 without NUL.
 * A refusal says in words what was found and what to send instead (never a route or a status:
 * clients show it as it is).
 */
import { open } from 'node:fs/promises'
import { createReadStream } from 'node:fs'
import { PassThrough, type Readable } from 'node:stream'
import { filetypeinfo } from 'magic-bytes.js'

export interface Accepted {
  ok: true
  ext: string
  content_type: string
}
export interface Refused {
  ok: false
  message: string
}
export type Verdict = Accepted | Refused

/** Bytes of the head the sniffers need (webp's RIFF header is 12). */
export const HEAD_BYTES = 4096

const IMAGES: Record<string, Accepted> = {
  png: { ok: true, ext: 'png', content_type: 'image/png' },
  jpg: { ok: true, ext: 'jpg', content_type: 'image/jpeg' },
  gif: { ok: true, ext: 'gif', content_type: 'image/gif' },
  webp: { ok: true, ext: 'webp', content_type: 'image/webp' },
}
const PDF: Accepted = { ok: true, ext: 'pdf', content_type: 'application/pdf' }
const DOCX: Accepted = { ok: true, ext: 'docx', content_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }
const PPTX: Accepted = { ok: true, ext: 'pptx', content_type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation' }

const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])

const SEND_IMAGE = 'send a png, jpeg, gif or webp image'
const SEND_FILE = 'send pdf, docx, pptx, images or text'

export function sniffImage(head: Uint8Array): Verdict {
  const found = filetypeinfo(head)
  for (const f of found) if (IMAGES[f.typename]) return IMAGES[f.typename]
  return { ok: false, message: `this file is ${describe(head)}; ${SEND_IMAGE}` }
}

/**
 * `path` is the complete upload on disk (the zip directory sits at its end). `name` is the
 * client's file name, used only for a text file's extension (`notes.md` → `.md`).
 */
export async function sniffDocument(head: Uint8Array, path: string, name = ''): Promise<Verdict> {
  if (startsWith(head, Buffer.from('%PDF-'))) return PDF
  if (startsWith(head, OLE2)) {
    return { ok: false, message: 'this file is a legacy Office document (doc, ppt or xls); save it as docx or pptx first' }
  }
  if (startsWith(head, Buffer.from('PK\x03\x04', 'latin1')) || startsWith(head, Buffer.from('PK\x05\x06', 'latin1'))) {
    const kind = await classifyZip(path)
    if (kind === 'docx') return DOCX
    if (kind === 'pptx') return PPTX
    if (kind === 'xlsx') return { ok: false, message: `this file is an xlsx spreadsheet; ${SEND_FILE}` }
    if (kind === 'broken') return { ok: false, message: `this file is a damaged zip archive; ${SEND_FILE}` }
    return { ok: false, message: `this file is a zip archive; ${SEND_FILE}` }
  }
  // Images have their own upload (and cap); a client that sent one here is told so in words.
  if (sniffImage(head).ok) return { ok: false, message: `this file is ${describe(head)}; attach it as an image` }
  // Text only when no binary signature matched the head (a png is never "text", whatever follows).
  const what = describe(head)
  if (what === 'plain text') {
    if (await isTextFile(path)) return textVerdict(name)
    return { ok: false, message: 'this file is not UTF-8 text throughout (a NUL byte or invalid bytes further on); save it as UTF-8 text and send it again' }
  }
  return { ok: false, message: `this file is ${what}; ${SEND_FILE}` }
}

/** Extension of a text upload: the client's own when it is short and plain, else `txt`. */
export function textExtension(name: string): string {
  const m = /\.([a-z0-9]{1,10})$/.exec(name.trim().toLowerCase())
  return m ? m[1] : 'txt'
}

const TEXT_TYPES: Record<string, string> = { md: 'text/markdown', markdown: 'text/markdown', json: 'application/json', csv: 'text/csv', html: 'text/html' }

function textVerdict(name: string): Accepted {
  const ext = textExtension(name)
  return { ok: true, ext, content_type: `${TEXT_TYPES[ext] ?? 'text/plain'}; charset=utf-8` }
}

/** The whole file is valid UTF-8 with no NUL byte (read as a stream; the upload is capped already). */
export async function isTextFile(path: string): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      if (chunk.includes(0)) return false
      decoder.decode(chunk, { stream: true })
    }
    decoder.decode()
    return true
  } catch {
    return false
  }
}

export type ZipKind = 'docx' | 'pptx' | 'xlsx' | 'zip' | 'broken'

/** A zip whose directory takes longer than this to read is called damaged. */
const ZIP_READ_MS = 10_000

/**
 * Office Open XML by its parts: `[Content_Types].xml` plus `word/`, `ppt/` or `xl/`.
 *
 * The archive is read through one file handle opened here, and every stream the reader asks
 * for has its errors handled and is destroyed before this returns: unzipper's own file source
 * opens the path again for each read, and a read it started just before rejecting (a zip64
 * record announcing 2^33 entries) would open the file after the caller removed it, an ENOENT
 * with no listener that ended the daemon.
 */
export async function classifyZip(path: string): Promise<ZipKind> {
  const fh = await open(path, 'r')
  const streams = new Set<Readable>()
  let finished = false
  let sourceFailed: (err: unknown) => void = () => {}
  const failed = new Promise<never>((_, reject) => (sourceFailed = reject))
  failed.catch(() => {})
  let timer: NodeJS.Timeout | undefined
  const tooSlow = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('zip directory read timed out')), ZIP_READ_MS)))
  tooSlow.catch(() => {})
  let names: string[]
  try {
    // Loaded on the first zip upload only: unzipper and its dependencies cost memory at rest.
    const { default: unzipper } = await import('unzipper')
    const size = (await fh.stat()).size
    const source = {
      size: async () => size,
      stream(start: number, length?: number): Readable {
        // Past the end of the read, or an offset no file has: an empty stream, never a throw.
        if (finished || !Number.isSafeInteger(start) || start < 0 || start > size) {
          const empty = new PassThrough()
          empty.end()
          return empty
        }
        const s = fh.createReadStream({ start, end: length ? Math.min(size, start + length) : undefined, autoClose: false })
        streams.add(s)
        s.on('error', sourceFailed)
        s.on('close', () => streams.delete(s))
        return s
      },
    }
    const dir = await Promise.race([unzipper.Open.custom(source), failed, tooSlow])
    names = dir.files.map((f) => f.path)
  } catch {
    return 'broken'
  } finally {
    finished = true
    clearTimeout(timer)
    for (const s of streams) s.destroy()
    await fh.close()
  }
  if (!names.includes('[Content_Types].xml')) return 'zip'
  if (names.some((n) => n.startsWith('word/'))) return 'docx'
  if (names.some((n) => n.startsWith('ppt/'))) return 'pptx'
  if (names.some((n) => n.startsWith('xl/'))) return 'xlsx'
  return 'zip'
}

/** A short phrase for what the bytes look like. */
export function describe(head: Uint8Array): string {
  const found = filetypeinfo(head)[0]
  if (found && IMAGES[found.typename]) return `a ${found.typename === 'jpg' ? 'jpeg' : found.typename} image`
  if (startsWith(head, Buffer.from('%PDF-'))) return 'pdf data'
  // Text formats with a signature of their own (JSON, HTML, XML, scripts) are text all the same.
  if (looksText(head)) return 'plain text'
  return found ? `${found.typename} data` : 'unrecognised binary data'
}

function looksText(head: Uint8Array): boolean {
  const sample = head.subarray(0, 512)
  return !sample.includes(0) && isUtf8(sample)
}

function isUtf8(b: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b)
    return true
  } catch {
    // A cut multi-byte character at the end of the sample is still text.
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(0, Math.max(0, b.length - 3)))
      return b.length > 3
    } catch {
      return false
    }
  }
}

function startsWith(a: Uint8Array, prefix: Uint8Array): boolean {
  if (a.length < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (a[i] !== prefix[i]) return false
  return true
}
