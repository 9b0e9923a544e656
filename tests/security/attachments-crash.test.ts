import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { createConsola, type LogObject } from 'consola'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import { makeRepo, type Repo } from '../diff/repo.ts'
import { agentPane } from '../diff/panes.ts'
import { PNG } from '../attachments/samples.ts'
import { zip64Bomb } from './zip-craft.ts'

/**
 * A 128-byte zip64-shaped /file body made the zip reader reject while one of its reads was still
 * opening the upload; the temp file was removed under it and the ENOENT, with no listener, ended
 * the process. (The setup file fails the test on any unhandled error in this process.) And a
 * client hanging up in the middle of an upload costs one debug line and leaves no temp file.
 */

const logs: LogObject[] = []
let stack: Stack
let repo: Repo
let pane: string
beforeAll(async () => {
  const log = createConsola({ level: 5, reporters: [{ log: (o) => void logs.push(o) }] })
  stack = await startStack({ bridge: { log } })
  repo = makeRepo({ files: { 'README.md': 'hi\n' } })
  ;({ pane } = await agentPane(stack, repo.dir))
}, 60_000)
afterAll(async () => {
  await stack?.close()
  repo?.cleanup()
})

const post = (route: string, body: Buffer) =>
  stack.bridge.request(`${route}?pane=${encodeURIComponent(pane)}`, { method: 'POST', body: body as unknown as BodyInit, headers: { 'content-type': 'application/octet-stream' } })
const listing = (kind: string) => {
  const dir = join(repo.dir, '.herdr-bridge', kind)
  return existsSync(dir) ? readdirSync(dir) : []
}

describe('zip64-shaped uploads', () => {
  test('a zip64 record announcing 2^33 entries is a damaged zip: 415, one line, no file left, the bridge lives', async () => {
    for (const records of [1n << 33n, 1n << 63n, (1n << 64n) - 1n]) {
      const body = zip64Bomb(records)
      expect(body.length).toBe(128)
      const r = await post('/file', body)
      expect([r.status, await r.text()]).toEqual([415, 'this file is a damaged zip archive; send pdf, docx, pptx, images or text'])
    }
    // A whole upload answered after them: a read the zip reader left behind has had its turn,
    // and failing on the removed file it would have failed this test.
    const marker = await post('/image', PNG)
    expect(marker.status).toBe(200)
    expect(listing('files')).toEqual([])
    expect((await stack.bridge.request('/info')).status).toBe(200)
  })
})

describe('a client hanging up mid-upload', () => {
  test('/image: one debug line, no stack, and the temp file is gone', async () => {
    const from = logs.length
    const before = listing('images')
    const port = Number(new URL(stack.bridge.url).port)
    const s = connect(port, '127.0.0.1')
    s.on('error', () => {})
    await new Promise((r) => s.once('connect', r))
    s.write(
      `POST /image?pane=${encodeURIComponent(pane)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${stack.bridge.adminToken}\r\n` +
        `Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n`,
    )
    s.write(PNG)
    // The body is being received: its temp file holds what was sent so far.
    const part = await until(
      () => listing('images').find((n) => n.endsWith('.part') && statSync(join(repo.dir, '.herdr-bridge', 'images', n)).size === PNG.length),
      'the upload temp file',
    )
    s.destroy()
    const line = await until(() => logs.slice(from).find((l) => String(l.args[0]).includes('/image')), 'the abort log line')
    expect([line.type, line.args]).toEqual(['debug', ['POST /image: client aborted the request']])
    await until(() => !listing('images').includes(part), 'the temp file to go')
    expect(listing('images')).toEqual(before)
    expect(logs.slice(from).filter((l) => l.level <= 1)).toEqual([])
  })
})
