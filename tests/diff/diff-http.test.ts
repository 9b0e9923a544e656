import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { symlinkSync, writeFileSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { makeRepo, tempDir, numbered, type Repo } from './repo.ts'
import { agentPane, shellPane } from './panes.ts'
import { cacheHits, RACY_MS } from '../../lib/git/file-signature.ts'

let stack: Stack
let repo: Repo
let pane: string
const dirs: string[] = []

beforeAll(async () => {
  stack = await startStack()
  repo = makeRepo({ files: { 'src/app.ts': numbered(96), 'bin.dat': Buffer.from([0, 1, 2]), 'README.md': 'hi\n' } })
  repo.write('src/app.ts', numbered(96).replace('line 50\n', 'line fifty\n'))
  repo.write('notes/todo.txt', 'a\nb\n')
  ;({ pane } = await agentPane(stack, repo.dir))
})
afterAll(async () => {
  await stack?.close()
  repo?.cleanup()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const get = (path: string, token?: string | null) => stack.bridge.request(path, { token })
async function expectText(res: Response, status: number, body: string) {
  expect({ status: res.status, body: await res.text() }).toEqual({ status, body })
}

describe('GET /diff', () => {
  it('returns branch, git and one entry per changed file', async () => {
    const res = await get(`/diff?pane=${encodeURIComponent(pane)}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const body = await res.json()
    expect(body.branch).toBe('main')
    expect(body.git).toEqual({
      repo: true,
      root: repo.dir,
      branch: 'main',
      default_branch: 'main',
      default_ref: 'main',
      remote: '',
      upstream: '',
      ahead: 0,
      behind: 0,
      dirty: true,
      changed: 2,
    })
    expect(body.files).toHaveLength(2)
    expect(body.files[0]).toMatchObject({ path: 'src/app.ts', status: 'modified', additions: 1, deletions: 1 })
    expect(body.files[0].diff).toMatch(/^diff --git a\/src\/app.ts b\/src\/app.ts\n/)
    expect(body.files[0]).not.toHaveProperty('old_path')
    expect(body.files[1]).toEqual({ path: 'notes/todo.txt', status: 'untracked', additions: 2, deletions: 0, diff: '--- /dev/null\n+++ b/notes/todo.txt\n+a\n+b\n' })
  })

  it('context=1 and context=true narrow to branch and git with files []', async () => {
    const full = await (await get(`/diff?pane=${pane}`)).json()
    for (const c of ['1', 'true']) {
      const body = await (await get(`/diff?pane=${pane}&context=${c}`)).json()
      expect(body).toEqual({ branch: 'main', git: full.git, files: [] })
    }
    const other = await (await get(`/diff?pane=${pane}&context=yes`)).json()
    expect(other.files).toHaveLength(2)
  })

  it('refuses: no pane 400, plain pane and unknown pane 404, no bearer 401', async () => {
    await expectText(await get('/diff'), 400, 'want ?pane=<pane_id>')
    const plain = await shellPane(stack, repo.dir)
    await expectText(await get(`/diff?pane=${plain.pane}`), 404, 'no such agent')
    await expectText(await get('/diff?pane=w999:p1'), 404, 'no such agent')
    await expectText(await get(`/diff?pane=${encodeURIComponent('nosuch/w1:p1')}`), 404, 'no such agent')
    await expectText(await get(`/diff?pane=${pane}`, null), 401, 'unauthorized')
    await expectText(await get(`/diff?pane=${pane}`, 'f'.repeat(64)), 401, 'unauthorized')
  })

  it('a device bearer works', async () => {
    const dev = await stack.bridge.pair()
    expect((await get(`/diff?pane=${pane}&context=1`, dev.bearer)).status).toBe(200)
  })

  it('not a repository: 200 with git.repo false and no files', async () => {
    const dir = tempDir('plain-')
    dirs.push(dir)
    const p = await agentPane(stack, dir)
    expect(await (await get(`/diff?pane=${p.pane}`)).json()).toEqual({
      branch: '',
      git: { repo: false, root: '', branch: '', default_branch: '', default_ref: '', remote: '', upstream: '', ahead: 0, behind: 0, dirty: false, changed: 0 },
      files: [],
    })
  })

  it('git failing outright is 502 git status ...: <stderr>', async () => {
    const broken = makeRepo({ files: { x: '1\n' } })
    dirs.push(broken.dir)
    const p = await agentPane(stack, broken.dir)
    writeFileSync(join(broken.dir, '.git/index'), 'not an index')
    const res = await get(`/diff?pane=${p.pane}`)
    expect(res.status).toBe(502)
    const body = await res.text()
    expect(body).toMatch(/^git status \.\.\.: .*index/)
    expect(body).not.toContain('\n')
  })

  it('a symlinked cwd reports the resolved root', async () => {
    const links = tempDir('links-')
    dirs.push(links)
    symlinkSync(repo.dir, join(links, 'repo'))
    const p = await agentPane(stack, join(links, 'repo'))
    const body = await (await get(`/diff?pane=${p.pane}&context=1`)).json()
    expect(body.git.root).toBe(repo.dir)
  })
})

describe('GET /diff/expand', () => {
  const expand = (q: string) => get(`/diff/expand?pane=${encodeURIComponent(pane)}&${q}`)

  it('400 lines from line 90 of a 96-line file: 7 lines, eof', async () => {
    const res = await expand('path=src/app.ts&start=90&count=400')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      path: 'src/app.ts',
      start: 90,
      lines: ['line 90', 'line 91', 'line 92', 'line 93', 'line 94', 'line 95', 'line 96'],
      eof: true,
      total: 96,
    })
  })

  it('clamps start and count', async () => {
    expect(await (await expand('path=src/app.ts&start=-5&count=0')).json()).toEqual({ path: 'src/app.ts', start: 1, lines: ['line 1'], eof: false, total: 96 })
    const many = await (await expand('path=src/app.ts&start=1&count=100000')).json()
    expect(many.lines).toHaveLength(96)
    expect(many.eof).toBe(true)
    expect(await (await expand('path=src/app.ts&start=500&count=10')).json()).toEqual({ path: 'src/app.ts', start: 500, lines: [], eof: true, total: 96 })
    expect(await (await expand('path=src/app.ts&start=48&count=3')).json()).toMatchObject({ start: 48, lines: ['line 48', 'line 49', 'line fifty'], eof: false })
  })

  it('refuses absolute paths, escapes and symlinks leading out with 400', async () => {
    repo.write('inside.txt', 'x\n')
    symlinkSync('/etc/hostname', join(repo.dir, 'out-link'))
    for (const p of ['/etc/passwd', '../x', 'src/../../x', 'out-link', '.git/config']) {
      await expectText(await expand(`path=${encodeURIComponent(p)}`), 400, `bad path: ${p} escapes the pane's tree`)
    }
    await expectText(await get(`/diff/expand?pane=${pane}`), 400, "bad path:  escapes the pane's tree")
    await expectText(await get('/diff/expand?path=x'), 400, "bad path: x escapes the pane's tree")
  })

  it('404 for a missing file or a pane without an agent, 415 for binary or over 4 MB', async () => {
    await expectText(await expand('path=nope.txt'), 404, 'no such file: nope.txt')
    await expectText(await expand('path=src'), 404, 'no such file: src')
    await expectText(await expand('path=bin.dat'), 415, 'not a text file: bin.dat')
    repo.write('huge.txt', 'y'.repeat(4 * 1024 * 1024 + 1))
    await expectText(await expand('path=huge.txt'), 415, 'not a text file: huge.txt')
    repo.write('exact.txt', 'z'.repeat(4 * 1024 * 1024 - 1) + '\n')
    expect(await (await expand('path=exact.txt&count=1')).json()).toMatchObject({ total: 1, eof: true })
    const plain = await shellPane(stack, repo.dir)
    await expectText(await get(`/diff/expand?pane=${plain.pane}&path=README.md`), 404, 'no such file: README.md')
  })

  it('finds the top level in the layout /diff remembers instead of asking git on every request', async () => {
    // A layout read within RACY_MS of a change to the files it depends on is not kept: let that
    // window pass (a loaded machine may need a second try).
    for (let attempt = 0; ; attempt++) {
      await new Promise((r) => setTimeout(r, RACY_MS * 3))
      expect((await expand('path=README.md')).status).toBe(200)
      const before = cacheHits.layout
      expect(await (await expand('path=README.md')).json()).toEqual({ path: 'README.md', start: 1, lines: ['hi'], eof: true, total: 1 })
      if (cacheHits.layout > before || attempt === 4) {
        expect(cacheHits.layout).toBeGreaterThan(before)
        return
      }
    }
  })

  it('paths are relative to the work tree even when the agent runs in a subdirectory', async () => {
    mkdirSync(join(repo.dir, 'src/deep'), { recursive: true })
    const p = await agentPane(stack, join(repo.dir, 'src'))
    const body = await (await get(`/diff/expand?pane=${p.pane}&path=README.md`)).json()
    expect(body).toEqual({ path: 'README.md', start: 1, lines: ['hi'], eof: true, total: 1 })
  })
})
