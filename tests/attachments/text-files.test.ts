// POST /file takes text files (valid UTF-8 up to the cap, no NUL byte) besides pdf, docx and pptx,
// stored the same way; the extension comes from ?name= when it is short and plain.
import { describe, it, expect } from 'vitest'
import { readFileSync, readdirSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { useUploadPane } from '../harness/upload-pane.ts'

const at = useUploadPane()
const post = (bytes: Buffer, name?: string) => at.upload('/file', bytes, { name })
const files = () => (existsSync(join(at.repo.dir, '.herdr-bridge', 'files')) ? readdirSync(join(at.repo.dir, '.herdr-bridge', 'files')).filter((n) => !n.startsWith('.')) : [])

async function stored(bytes: Buffer, name: string | undefined, ext: string, type: string) {
  const res = await post(bytes, name)
  const raw = await res.text()
  expect([name, res.status, res.status === 200 ? '' : raw]).toEqual([name, 200, ''])
  const body = JSON.parse(raw)
  expect(body.relative_path).toMatch(new RegExp(`^\\.herdr-bridge/files/\\d{8}-\\d{6}-[0-9a-f]{8}\\.${ext}$`))
  expect(body).toEqual({ path: join(at.repo.dir, body.relative_path), relative_path: body.relative_path, content_type: type, bytes: bytes.length })
  expect(readFileSync(body.path).equals(bytes)).toBe(true)
}

describe('POST /file with text', () => {
  it('stores plain text, code, logs, markdown, JSON and CSV, keeping a short extension from the name', async () => {
    await stored(Buffer.from('hello, world\n'), undefined, 'txt', 'text/plain; charset=utf-8')
    await stored(Buffer.from('# Notes\n\n- ünïcödé ✓ 日本語\n'), 'notes.md', 'md', 'text/markdown; charset=utf-8')
    await stored(Buffer.from('{"a": [1, 2]}\n'), 'data.JSON', 'json', 'application/json; charset=utf-8')
    await stored(Buffer.from('a,b\n1,2\n'), 'table.csv', 'csv', 'text/csv; charset=utf-8')
    await stored(Buffer.from('def main():\n    print("hi")\n'), 'tool.py', 'py', 'text/plain; charset=utf-8')
    await stored(Buffer.from('2026-01-01 ERROR boom\n'.repeat(5000)), 'server.log', 'log', 'text/plain; charset=utf-8')
    // Names that give no short plain extension fall back to txt; a path never leaks into the name.
    await stored(Buffer.from('x\n'), '../../etc/passwd', 'txt', 'text/plain; charset=utf-8')
    await stored(Buffer.from('y\n'), 'archive.tar.verylongextension', 'txt', 'text/plain; charset=utf-8')
    await stored(Buffer.from('z\n'), 'a.b/c', 'txt', 'text/plain; charset=utf-8')
    expect(at.repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
  })

  it('refuses a NUL byte anywhere, invalid UTF-8 and a cut character at the end, in words', async () => {
    const before = files()
    const late = Buffer.concat([Buffer.from('a'.repeat(100_000)), Buffer.from([0]), Buffer.from('b\n')])
    for (const bytes of [late, Buffer.from([0x68, 0x69, 0xff, 0xfe, 0x0a]), Buffer.concat([Buffer.from('ok '), Buffer.from('✓').subarray(0, 2)])]) {
      const res = await post(bytes, 'x.txt')
      const text = await res.text()
      expect(res.status).toBe(415)
      expect([
        'this file is not UTF-8 text throughout (a NUL byte or invalid bytes further on); save it as UTF-8 text and send it again',
        'this file is unrecognised binary data; send pdf, docx, pptx, images or text',
      ]).toContain(text)
      expect(text).not.toMatch(/\/file|415/)
    }
    expect(files()).toEqual(before)
  })

  it('refuses an over-long name with a one-line 400', async () => {
    const res = await post(Buffer.from('x'), 'n'.repeat(300))
    expect([res.status, await res.text()]).toEqual([400, 'name over 255 characters'])
  })
})
