/**
 * Decides an upload's type from its bytes alone. Images by magic bytes; pdf by magic bytes;
 * docx/pptx by the zip's central directory (entry names only: nothing is ever inflated, so a
 * zip bomb costs one directory read). A refusal says what was found.
 */
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

export function sniffImage(head: Uint8Array): Verdict {
  const found = filetypeinfo(head)
  for (const f of found) if (IMAGES[f.typename]) return IMAGES[f.typename]
  return { ok: false, message: `found ${describe(head)}; /image accepts png, jpeg, gif or webp` }
}

/** `path` is the complete upload on disk (the zip directory sits at its end). */
export async function sniffDocument(head: Uint8Array, path: string): Promise<Verdict> {
  if (startsWith(head, Buffer.from('%PDF-'))) return PDF
  if (startsWith(head, OLE2)) {
    return { ok: false, message: 'found a legacy Office document (doc, ppt or xls); convert it to docx or pptx first' }
  }
  if (startsWith(head, Buffer.from('PK\x03\x04', 'latin1')) || startsWith(head, Buffer.from('PK\x05\x06', 'latin1'))) {
    const kind = await classifyZip(path)
    if (kind === 'docx') return DOCX
    if (kind === 'pptx') return PPTX
    if (kind === 'xlsx') return { ok: false, message: 'found an xlsx spreadsheet; /file accepts pdf, docx or pptx' }
    if (kind === 'broken') return { ok: false, message: 'found a damaged zip archive; /file accepts pdf, docx or pptx' }
    return { ok: false, message: 'found a plain zip archive; /file accepts pdf, docx or pptx' }
  }
  return { ok: false, message: `found ${describe(head)}; /file accepts pdf, docx or pptx` }
}

export type ZipKind = 'docx' | 'pptx' | 'xlsx' | 'zip' | 'broken'

/** Office Open XML by its parts: `[Content_Types].xml` plus `word/`, `ppt/` or `xl/`. */
export async function classifyZip(path: string): Promise<ZipKind> {
  let names: string[]
  try {
    // Loaded on the first zip upload only: unzipper and its dependencies cost memory at rest.
    const { default: unzipper } = await import('unzipper')
    const dir = await unzipper.Open.file(path)
    names = dir.files.map((f) => f.path)
  } catch {
    return 'broken'
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
  if (found) return `${found.typename} data`
  const sample = head.subarray(0, 512)
  const text = !sample.includes(0) && isUtf8(sample)
  return text ? 'plain text' : 'unrecognised binary data'
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
