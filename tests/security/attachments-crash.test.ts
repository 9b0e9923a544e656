import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { makeRepo, type Repo } from '../diff/repo.ts'
import { agentPane } from '../diff/panes.ts'
import { zip64Bomb } from './zip-craft.ts'

/**
 * A 128-byte zip64-shaped /file body made the zip reader reject while one of its reads was still
 * opening the upload; the temp file was removed under it and the ENOENT, with no listener, ended
 * the process. (The setup file fails the test on any unhandled error in this process.)
 */

let stack: Stack
let repo: Repo
let pane: string
beforeAll(async () => {
  stack = await startStack()
  repo = makeRepo({ files: { 'README.md': 'hi\n' } })
  ;({ pane } = await agentPane(stack, repo.dir))
}, 60_000)
afterAll(async () => {
  await stack?.close()
  repo?.cleanup()
})

const post = (body: Buffer) =>
  stack.bridge.request(`/file?pane=${encodeURIComponent(pane)}`, { method: 'POST', body: body as unknown as BodyInit, headers: { 'content-type': 'application/octet-stream' } })

describe('zip64-shaped uploads', () => {
  test('a zip64 record announcing 2^33 entries is a damaged zip: 415, one line, no file left, the bridge lives', async () => {
    for (const records of [1n << 33n, 1n << 63n, (1n << 64n) - 1n]) {
      const body = zip64Bomb(records)
      expect(body.length).toBe(128)
      const r = await post(body)
      expect([r.status, await r.text()]).toEqual([415, 'found a damaged zip archive; /file accepts pdf, docx or pptx'])
    }
    // Give any read the reader left behind time to fail on the removed file.
    await new Promise((r) => setTimeout(r, 300))
    const dir = join(repo.dir, '.herdr-bridge', 'files')
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([])
    expect((await stack.bridge.request('/info')).status).toBe(200)
  })
})
