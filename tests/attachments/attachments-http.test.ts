import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync, utimesSync, symlinkSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { makeRepo, tempDir, type Repo } from '../diff/repo.ts'
import { agentPane, shellPane } from '../diff/panes.ts'
import { PNG, JPEG, GIF, WEBP, PDF, DOC, DOCX, PPTX, XLSX, PLAIN_ZIP, zipBombDocx } from './samples.ts'

const MiB = 1024 * 1024
let stack: Stack
let repo: Repo
let pane: string
const dirs: string[] = []

beforeAll(async () => {
  stack = await startStack()
  repo = makeRepo({ files: { 'README.md': 'hi\n' } })
  ;({ pane } = await agentPane(stack, repo.dir))
})
afterAll(async () => {
  await stack?.close()
  repo?.cleanup()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

function post(path: string, body: Buffer | ReadableStream | null, opts: { pane?: string | null; headers?: Record<string, string>; token?: string | null } = {}) {
  const p = opts.pane === undefined ? pane : opts.pane
  const q = p === null ? '' : `?pane=${encodeURIComponent(p)}`
  const init: RequestInit & { duplex?: string } = {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...opts.headers },
    body: body as BodyInit | null,
  }
  if (body instanceof ReadableStream) init.duplex = 'half'
  return stack.bridge.request(path + q, { ...init, token: opts.token })
}

async function expectText(res: Response, status: number, body: string) {
  expect({ status: res.status, body: await res.text() }).toEqual({ status, body })
}

const NAME = /^\.herdr-bridge\/(images|files)\/\d{8}-\d{6}-[0-9a-f]{8}\.(png|jpg|gif|webp|pdf|docx|pptx)$/
const listDir = (cwd: string, kind: string) => (existsSync(join(cwd, '.herdr-bridge', kind)) ? readdirSync(join(cwd, '.herdr-bridge', kind)).sort() : [])

async function accepted(path: string, bytes: Buffer, contentType: string, ext: string, cwd = repo.dir, headers?: Record<string, string>, p?: string) {
  const res = await post(path, bytes, { headers, pane: p })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const body = await res.json()
  expect(body.relative_path).toMatch(NAME)
  expect(body.relative_path.endsWith(`.${ext}`)).toBe(true)
  expect(body).toEqual({ path: join(cwd, body.relative_path), relative_path: body.relative_path, content_type: contentType, bytes: bytes.length })
  expect(readFileSync(body.path).equals(bytes)).toBe(true)
  return body
}

describe('POST /image', () => {
  it('accepts png, jpeg, gif and webp by their bytes, into .herdr-bridge/images with a self-ignoring parent', async () => {
    await accepted('/image', PNG, 'image/png', 'png')
    await accepted('/image', JPEG, 'image/jpeg', 'jpg')
    await accepted('/image', GIF, 'image/gif', 'gif')
    await accepted('/image', WEBP, 'image/webp', 'webp')
    expect(readFileSync(join(repo.dir, '.herdr-bridge/.gitignore'), 'utf8')).toBe('*\n')
    // The repository stays clean.
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    // Only finished files: no temp files left behind.
    expect(listDir(repo.dir, 'images').filter((n) => n.startsWith('.'))).toEqual([])
  })

  it('ignores the declared type and any client file name', async () => {
    const body = await accepted('/image', PNG, 'image/png', 'png', repo.dir, {
      'content-type': 'text/plain',
      'content-disposition': 'attachment; filename="../../evil.sh"',
    })
    expect(body.relative_path).not.toContain('evil')
    expect(existsSync(join(repo.dir, '..', 'evil.sh'))).toBe(false)
  })

  it('refuses other types with 415 saying what was found', async () => {
    await expectText(await post('/image', Buffer.from('hello, world\n')), 415, 'this file is plain text; send a png, jpeg, gif or webp image')
    await expectText(await post('/image', PDF), 415, 'this file is pdf data; send a png, jpeg, gif or webp image')
    await expectText(await post('/image', Buffer.from([0xde, 0xad, 0xbe, 0xef, 0, 1, 2])), 415, 'this file is unrecognised binary data; send a png, jpeg, gif or webp image')
  })

  it('exactly 10 MiB is accepted; 10 MiB + 1 is 413 and nothing appears', async () => {
    const exact = Buffer.concat([PNG, Buffer.alloc(10 * MiB - PNG.length)])
    await accepted('/image', exact, 'image/png', 'png')
    const before = listDir(repo.dir, 'images')
    const over = Buffer.concat([PNG, Buffer.alloc(10 * MiB + 1 - PNG.length)])
    await expectText(await post('/image', over), 413, 'body over the 10 MiB limit of /image')
    expect(listDir(repo.dir, 'images')).toEqual(before)
  })

  it('a streamed body without Content-Length is cut at the first byte over the cap', async () => {
    const before = listDir(repo.dir, 'images')
    let sent = 0
    const chunk = Buffer.alloc(MiB)
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent === 0) c.enqueue(PNG)
        // Endless: the server must stop reading on its own.
        c.enqueue(chunk)
        sent += chunk.length
      },
    })
    const res = await post('/image', stream)
    await expectText(res, 413, 'body over the 10 MiB limit of /image')
    expect(listDir(repo.dir, 'images')).toEqual(before)
  })

  it('400 for an empty body or no pane, 404 for an unknown pane, 401 without a bearer, 405 for GET', async () => {
    await expectText(await post('/image', Buffer.alloc(0)), 400, 'empty body')
    await expectText(await post('/image', PNG, { pane: null }), 400, 'want ?pane=<pane_id>')
    await expectText(await post('/image', PNG, { pane: 'w999:p9' }), 404, 'no such pane')
    await expectText(await post('/image', PNG, { pane: 'nosuch/w1:p1' }), 404, 'no such pane')
    await expectText(await post('/image', PNG, { token: null }), 401, 'unauthorized')
    const get = await stack.bridge.request(`/image?pane=${pane}`)
    expect(get.status).toBe(405)
    const empty = new ReadableStream<Uint8Array>({ start: (c) => c.close() })
    await expectText(await post('/image', empty), 400, 'empty body')
  })

  it('a plain shell pane drops into its own cwd', async () => {
    const dir = tempDir('shell-')
    dirs.push(dir)
    const shell = await shellPane(stack, dir)
    await accepted('/image', GIF, 'image/gif', 'gif', dir, undefined, shell.pane)
  })
})

describe('POST /file', () => {
  it('accepts pdf, docx and pptx', async () => {
    await accepted('/file', PDF, 'application/pdf', 'pdf')
    await accepted('/file', DOCX, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx')
    await accepted('/file', PPTX, 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'pptx')
    expect(repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
  })

  it('refuses xlsx, plain zip, legacy doc and images, each saying in words what was found', async () => {
    await expectText(await post('/file', XLSX), 415, 'this file is an xlsx spreadsheet; send pdf, docx, pptx, images or text')
    await expectText(await post('/file', PLAIN_ZIP), 415, 'this file is a zip archive; send pdf, docx, pptx, images or text')
    await expectText(await post('/file', DOC), 415, 'this file is a legacy Office document (doc, ppt or xls); save it as docx or pptx first')
    await expectText(await post('/file', PNG), 415, 'this file is a png image; attach it as an image')
    expect(listDir(repo.dir, 'files').filter((n) => n.startsWith('.'))).toEqual([])
  })

  it('classifies a zip bomb from its directory without inflating it', async () => {
    const bomb = zipBombDocx()
    expect(bomb.inflatedSize).toBe(2 * 1024 * MiB)
    const rssBefore = process.memoryUsage().rss
    await accepted('/file', bomb.bytes, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx')
    // Inflating would take gigabytes; the bridge runs in this process.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * MiB)
  })

  it('25 MiB cap: over the declared length is 413 before anything is read', async () => {
    const over = Buffer.concat([PDF, Buffer.alloc(25 * MiB + 1 - PDF.length)])
    await expectText(await post('/file', over), 413, 'body over the 25 MiB limit of /file')
  })
})

describe('drop directory', () => {
  it('prunes files older than 7 days and keeps the newest 40', async () => {
    const dir = tempDir('prune-')
    dirs.push(dir)
    const p = await agentPane(stack, dir)
    const images = join(dir, '.herdr-bridge/images')
    mkdirSync(images, { recursive: true })
    const now = Date.now() / 1000
    const put = (name: string, ageS: number) => {
      writeFileSync(join(images, name), 'x')
      utimesSync(join(images, name), now - ageS, now - ageS)
    }
    put('20200101-000000-aaaaaaaa.png', 8 * 86400) // too old
    for (let i = 0; i < 45; i++) put(`20250101-0000${String(i).padStart(2, '0')}-bbbbbbbb.png`, 3600 + (45 - i) * 60)
    put('mine.txt', 30 * 86400) // not ours: never touched
    const body = await accepted('/image', PNG, 'image/png', 'png', dir, undefined, p.pane)
    const left = listDir(dir, 'images')
    expect(left).toContain('mine.txt')
    expect(left).not.toContain('20200101-000000-aaaaaaaa.png')
    const ours = left.filter((n) => n !== 'mine.txt')
    expect(ours).toHaveLength(40)
    expect(ours).toContain(body.relative_path.split('/').pop())
    // The five oldest of the 45 went.
    for (let i = 0; i < 6; i++) expect(ours).not.toContain(`20250101-0000${String(i).padStart(2, '0')}-bbbbbbbb.png`)
    expect(ours).toContain('20250101-000006-bbbbbbbb.png')
  })

  it('a .herdr-bridge symlink is never followed; a directory that cannot be made is a clear 500', async () => {
    const dir = tempDir('link-')
    const elsewhere = tempDir('elsewhere-')
    dirs.push(dir, elsewhere)
    symlinkSync(elsewhere, join(dir, '.herdr-bridge'))
    const p = await agentPane(stack, dir)
    const res = await post('/image', PNG, { pane: p.pane })
    expect(res.status).toBe(500)
    expect(await res.text()).toBe(`drop directory ${join(dir, '.herdr-bridge')} is not writable: it is a symlink or not a directory`)
    expect(readdirSync(elsewhere)).toEqual([])

    // `images` taken by a plain file: the directory cannot be made.
    const taken = tempDir('taken-')
    dirs.push(taken)
    mkdirSync(join(taken, '.herdr-bridge'))
    writeFileSync(join(taken, '.herdr-bridge/images'), 'not a directory')
    const q = await agentPane(stack, taken)
    await expectText(await post('/image', PNG, { pane: q.pane }), 500, `drop directory ${join(taken, '.herdr-bridge/images')} is not writable: it is a symlink or not a directory`)
  })
})

describe('herdr down', () => {
  it('a herdr failure is 502', async () => {
    await stack.sim.stopSession('default')
    try {
      const res = await post('/image', PNG)
      expect(res.status).toBe(502)
      expect(await res.text()).toMatch(/^herdr: /)
    } finally {
      await stack.sim.startSession('default')
    }
  })
})
