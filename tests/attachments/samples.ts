/** Tiny real sample files for the attachment tests, and a minimal zip writer. */
import { crc32, deflateRawSync, constants } from 'node:zlib'

const b64 = (s: string) => Buffer.from(s, 'base64')

/** 1×1 PNG. */
export const PNG = b64('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==')
/** 1×1 GIF. */
export const GIF = b64('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7')
/** 1×1 lossless WebP. */
export const WEBP = b64('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==')
/** 1×1 baseline JPEG. */
export const JPEG = b64(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
)
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n')
/** The OLE2 compound-file header of a legacy .doc, padded to one sector. */
export const DOC = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504)])

export interface ZipEntry {
  name: string
  data?: Buffer
  /** Pre-deflated data with its real uncompressed size and CRC (for the bomb). */
  deflated?: { data: Buffer; size: number; crc: number }
}

/** A zip with stored (or pre-deflated) entries: local headers, central directory, end record. */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const e of entries) {
    const name = Buffer.from(e.name)
    const method = e.deflated ? 8 : 0
    const body = e.deflated ? e.deflated.data : (e.data ?? Buffer.alloc(0))
    const size = e.deflated ? e.deflated.size : body.length
    const crc = e.deflated ? e.deflated.crc : crc32(body)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(method, 8)
    local.writeUInt32LE(crc >>> 0, 14)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(size >>> 0, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(method, 10)
    central.writeUInt32LE(crc >>> 0, 16)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(size >>> 0, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, body)
    centrals.push(central, name)
    offset += 30 + name.length + body.length
  }
  const cd = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(cd.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, cd, end])
}

const CT = (main: string) =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/${main}" ContentType="application/xml"/></Types>`,
  )

export const DOCX = zip([
  { name: '[Content_Types].xml', data: CT('word/document.xml') },
  { name: '_rels/.rels', data: Buffer.from('<Relationships/>') },
  { name: 'word/document.xml', data: Buffer.from('<w:document><w:body><w:p><w:r><w:t>hi</w:t></w:r></w:p></w:body></w:document>') },
])
export const PPTX = zip([
  { name: '[Content_Types].xml', data: CT('ppt/presentation.xml') },
  { name: 'ppt/presentation.xml', data: Buffer.from('<p:presentation/>') },
  { name: 'ppt/slides/slide1.xml', data: Buffer.from('<p:sld/>') },
])
export const XLSX = zip([
  { name: '[Content_Types].xml', data: CT('xl/workbook.xml') },
  { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') },
])
export const PLAIN_ZIP = zip([{ name: 'notes.txt', data: Buffer.from('just a zip\n') }])

/**
 * A docx whose document part inflates to 2 GiB of zeros from about 2 MB: one deflate block of
 * 16 MiB zeros (sync-flushed, so it is valid in any position) repeated 128 times.
 */
export function zipBombDocx(): { bytes: Buffer; inflatedSize: number } {
  const chunk = Buffer.alloc(16 * 1024 * 1024)
  const block = deflateRawSync(chunk, { level: 9, finishFlush: constants.Z_SYNC_FLUSH })
  const repeats = 128
  const data = Buffer.concat([...Array.from({ length: repeats }, () => block), Buffer.from([0x03, 0x00])])
  let crc = 0
  for (let i = 0; i < repeats; i++) crc = crc32(chunk, crc)
  const size = chunk.length * repeats
  return {
    bytes: zip([
      { name: '[Content_Types].xml', data: CT('word/document.xml') },
      { name: 'word/document.xml', deflated: { data, size, crc } },
    ]),
    inflatedSize: size,
  }
}
