// Spec 2 §7 exact error bodies for GET /diff and GET /diff/expand, against the real bridge and
// the herdr simulator.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { makeRepo, type Repo } from './repo.ts'
import { agentPane, shellPane } from './panes.ts'

let stack: Stack
let repo: Repo
let pane: string

beforeAll(async () => {
  stack = await startStack()
  repo = makeRepo({ files: { 'a.txt': 'one\n', 'b.txt': 'bee\n' } })
  ;({ pane } = await agentPane(stack, repo.dir))
})
afterAll(async () => {
  await stack?.close()
  repo?.cleanup()
})

const get = (path: string) => stack.bridge.request(path)
async function expectText(res: Response, status: number, body: string) {
  expect({ status: res.status, body: await res.text() }).toEqual({ status, body })
}

describe('GET /diff/expand errors (spec 2 §7)', () => {
  it('400 for a missing pane or path has the bad path body', async () => {
    await expectText(await get(`/diff/expand?pane=${encodeURIComponent(pane)}`), 400, "bad path:  escapes the pane's tree")
    await expectText(await get(`/diff/expand?pane=${encodeURIComponent(pane)}&path=`), 400, "bad path:  escapes the pane's tree")
    await expectText(await get('/diff/expand?path=a.txt'), 400, "bad path: a.txt escapes the pane's tree")
  })

  it('404 for a pane without an agent or an unknown pane is no such file: <path>', async () => {
    const plain = await shellPane(stack, repo.dir)
    await expectText(await get(`/diff/expand?pane=${encodeURIComponent(plain.pane)}&path=a.txt`), 404, 'no such file: a.txt')
    await expectText(await get('/diff/expand?pane=w999:p1&path=a.txt'), 404, 'no such file: a.txt')
    await expectText(await get(`/diff/expand?pane=${encodeURIComponent('nosuch/w1:p1')}&path=a.txt`), 404, 'no such file: a.txt')
  })
})

describe('GET /diff 502 (spec 2 §7)', () => {
  it('git diff failing after a good status still answers git status ...: <stderr>', async () => {
    const r = makeRepo({ files: { 'c.txt': 'cee\n' } })
    try {
      const p = await agentPane(stack, r.dir)
      // The committed blob of c.txt goes missing: status (index and tree ids only) still works,
      // `git diff HEAD` cannot read the old content.
      const blob = r.git('rev-parse', 'HEAD:c.txt').trim()
      rmSync(join(r.dir, '.git/objects', blob.slice(0, 2), blob.slice(2)))
      r.write('c.txt', 'cee\nmore\n')
      expect((await get(`/diff?pane=${encodeURIComponent(p.pane)}&context=1`)).status).toBe(200)
      const res = await get(`/diff?pane=${encodeURIComponent(p.pane)}`)
      const body = await res.text()
      expect(res.status).toBe(502)
      expect(body).toMatch(/^git status \.\.\.: \S/)
      expect(body).toContain(blob.slice(0, 7))
      expect(body).not.toContain('\n')
    } finally {
      r.cleanup()
    }
  })
})
