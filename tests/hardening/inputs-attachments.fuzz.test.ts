// POST /image and POST /file with random bytes, cut and damaged real files: only 200/400/413/415,
// every 200 leaves exactly its one file (extension matching the bytes), no temp file ever stays.
import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { useUploadPane } from '../harness/upload-pane.ts'
import { PNG, JPEG, GIF, WEBP, PDF, DOC, DOCX, PPTX, XLSX, PLAIN_ZIP } from '../attachments/samples.ts'
import { bounded } from './util.ts'
import { asZip64, truncatedDirectory, withEocd, zip64Bomb } from '../security/zip-craft.ts'

const at = useUploadPane(60_000)

const SAMPLES = [PNG, JPEG, GIF, WEBP, PDF, DOC, DOCX, PPTX, XLSX, PLAIN_ZIP]

/** Random bytes, real files cut anywhere, real files with bytes flipped or appended. */
const body = fc.oneof(
  fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)),
  fc.tuple(fc.constantFrom(...SAMPLES), fc.nat()).map(([s, n]) => s.subarray(0, n % (s.length + 1))),
  fc.tuple(fc.constantFrom(...SAMPLES), fc.uint8Array({ minLength: 1, maxLength: 200 })).map(([s, tail]) => Buffer.concat([s, tail])),
  fc.tuple(fc.constantFrom(...SAMPLES), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 6 })).map(([s, flips]) => {
    const b = Buffer.from(s)
    for (const [at, v] of flips) b[at % b.length] = v
    return b
  }),
  fc.tuple(fc.constantFrom(...SAMPLES), fc.nat(), fc.uint8Array({ maxLength: 300 })).map(([s, n, rest]) => Buffer.concat([s.subarray(0, Math.min(s.length, 4 + (n % 40))), rest])),
)

/** What the bytes must start with for each extension the bridge may choose. */
const MAGIC: Record<string, (b: Buffer) => boolean> = {
  png: (b) => b.subarray(0, 8).equals(PNG.subarray(0, 8)),
  jpg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  gif: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  webp: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  pdf: (b) => b.subarray(0, 5).toString('latin1') === '%PDF-',
  docx: (b) => b.subarray(0, 2).toString('latin1') === 'PK',
  pptx: (b) => b.subarray(0, 2).toString('latin1') === 'PK',
  // A text upload (no name given): the whole body is UTF-8 with no NUL.
  txt: (b) => !b.includes(0) && new TextDecoder('utf-8', { fatal: true }).decode(b) !== undefined,
}
const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain; charset=utf-8',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
}

const dropDir = (kind: string) => join(at.repo.dir, '.herdr-bridge', kind)
const listing = (kind: string) => (existsSync(dropDir(kind)) ? readdirSync(dropDir(kind)) : [])

describe('attachment sniffing (property)', () => {
  it('random and damaged bodies: 200/400/415 only; a 200 adds exactly its file; no temp file stays', async () => {
    let accepted = 0
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/image', '/file'), body, async (route, bytes) => {
        const kind = route === '/image' ? 'images' : 'files'
        const before = new Set(listing(kind))
        const r = await bounded((signal) => at.upload(route, bytes, { signal }), 15_000)
        const tag = `${route} ${bytes.subarray(0, 16).toString('hex')}… (${bytes.length} bytes)`
        expect([tag, [200, 400, 415].includes(r.status)]).toEqual([tag, true])
        expect(r.body).not.toMatch(/\n\s+at /)
        const after = listing(kind)
        expect([tag, after.filter((n) => n.startsWith('.upload-'))]).toEqual([tag, []])
        if (bytes.length === 0) expect([tag, r.status, r.body]).toEqual([tag, 400, 'empty body'])
        if (r.status !== 200) {
          // Nothing new (the listing may only have lost files to pruning, never gained one).
          expect([tag, after.filter((n) => !before.has(n))]).toEqual([tag, []])
          return
        }
        accepted++
        const out = JSON.parse(r.body)
        const name = basename(out.path)
        const ext = name.split('.').pop()!
        expect([tag, ext in MAGIC && MAGIC[ext](bytes), out.content_type, out.bytes]).toEqual([tag, true, TYPES[ext], bytes.length])
        expect(route === '/image' ? ['png', 'jpg', 'gif', 'webp'] : ['pdf', 'docx', 'pptx', 'txt']).toContain(ext)
        expect(out.relative_path).toBe(`.herdr-bridge/${kind}/${name}`)
        // Exactly this file is new (an identical upload in the same second reuses the name).
        expect([tag, after.filter((n) => !before.has(n) && n !== name)]).toEqual([tag, []])
        expect(readFileSync(out.path).equals(bytes)).toBe(true)
        expect(after.length).toBeLessThanOrEqual(40)
      }),
      { numRuns: 200 },
    )
    // The generators reach the accepting side too, or the 200 checks above proved nothing.
    expect(accepted).toBeGreaterThan(5)
  }, 120_000)

  it('the untouched samples are accepted where they belong and refused elsewhere', async () => {
    const want: Array<[string, Buffer, number]> = [
      ['/image', PNG, 200],
      ['/image', JPEG, 200],
      ['/image', GIF, 200],
      ['/image', WEBP, 200],
      ['/image', PDF, 415],
      ['/image', DOCX, 415],
      ['/file', PDF, 200],
      ['/file', DOCX, 200],
      ['/file', PPTX, 200],
      ['/file', XLSX, 415],
      ['/file', PLAIN_ZIP, 415],
      ['/file', DOC, 415],
      ['/file', PNG, 415],
    ]
    for (const [route, bytes, status] of want) {
      const res = await at.upload(route, bytes)
      expect([route, bytes.subarray(0, 4).toString('hex'), res.status]).toEqual([route, bytes.subarray(0, 4).toString('hex'), status])
      await res.text()
    }
  })
})

/** zip/docx/pptx with their directory rewritten: zip64 records, wrong counts and offsets, cut entries. */
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n })
const zipLike = fc.constantFrom(DOCX, PPTX, XLSX, PLAIN_ZIP)
const damagedZip = fc.oneof(
  fc.tuple(zipLike, u64, u64, u64, fc.option(u64, { nil: undefined })).map(([z, n, size, off, loc]) => asZip64(z, n, size, off, loc)),
  fc.tuple(zipLike, fc.nat(0xffff), fc.nat(), fc.nat(), fc.nat(0xffff)).map(([z, n, size, off, comment]) => withEocd(z, n, size, off, comment)),
  fc.tuple(zipLike, fc.nat()).map(([z, cut]) => truncatedDirectory(z, cut)),
  u64.map((n) => zip64Bomb(n)),
)

describe('zip directory mutations (property)', () => {
  it('zip64 records, bad central directories and truncated entries: 200/415 with one line, nothing left behind, the bridge lives', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/image', '/file'), damagedZip, async (route, bytes) => {
        const kind = route === '/image' ? 'images' : 'files'
        const before = new Set(listing(kind))
        const r = await bounded((signal) => at.upload(route, bytes, { signal }), 15_000)
        const tag = `${route} …${bytes.subarray(-24).toString('hex')} (${bytes.length} bytes)`
        expect([tag, [200, 415].includes(r.status)]).toEqual([tag, true])
        if (r.status === 415) expect([tag, r.body.includes('\n')]).toEqual([tag, false])
        const after = listing(kind)
        expect([tag, after.filter((n) => n.startsWith('.upload-'))]).toEqual([tag, []])
        if (r.status !== 200) expect([tag, after.filter((n) => !before.has(n))]).toEqual([tag, []])
      }),
      { numRuns: 150 },
    )
    // Reads the reader left behind fail after the answer; the setup file would catch them.
    await new Promise((r) => setTimeout(r, 300))
    expect((await at.stack.bridge.request('/info')).status).toBe(200)
  }, 120_000)
})
