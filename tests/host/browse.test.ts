import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { deriveRoots } from '../../plugins/browse/roots.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

type Entry = GetResponses['/browse']['entries'][number]

describe('GET /browse', () => {
  let b: TestBridge
  let home: string
  let outside: string

  beforeAll(async () => {
    home = realpathSync(mkdtempSync(join(tmpdir(), 'browse-home-')))
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'browse-outside-')))
    mkdirSync(join(home, 'code/alpha/.git'), { recursive: true })
    mkdirSync(join(home, 'code/beta'), { recursive: true })
    writeFileSync(join(home, 'code/beta/.git'), 'gitdir: /elsewhere\n') // a linked worktree
    mkdirSync(join(home, 'code/.hidden'), { recursive: true })
    writeFileSync(join(home, 'code/notes.txt'), 'not a directory')
    mkdirSync(join(outside, 'secret'), { recursive: true })
    symlinkSync(outside, join(home, 'code/escape'))
    symlinkSync(join(home, 'code/alpha'), join(home, 'code/alias'))
    b = await startBridge({ home })
  })
  afterAll(async () => {
    await b.close()
    rmSync(home, { recursive: true, force: true })
    rmSync(outside, { recursive: true, force: true })
  })

  const get = async (q: string) => {
    const res = await b.request(`/browse${q}`)
    return { status: res.status, type: res.headers.get('content-type'), body: res.status === 200 ? await res.json() : await res.text() }
  }

  it('lists home by default with the root and entry shape clients read', async () => {
    const r = await get('')
    expect(r.status).toBe(200)
    expect(r.type).toMatch(/^application\/json/)
    expect(r.body.path).toBe(home)
    expect(r.body.parent).toBe('')
    expect(r.body.roots).toEqual([{ path: home, label: '~', kind: 'home' }])
    expect(r.body.entries).toEqual([{ name: 'code', path: join(home, 'code'), is_repo: false, is_symlink: false, open_workspace_id: '' }])
    expect(r.body.truncated).toBe(false)
    expect(r.body.limit).toBe(500)
  })

  it('lists directories only, marks repos and in-root symlinks, hides dot dirs and escaping links', async () => {
    const r = await get(`?path=${encodeURIComponent(join(home, 'code'))}`)
    expect(r.status).toBe(200)
    expect(r.body.parent).toBe(home)
    expect(r.body.entries.map((e: Entry) => [e.name, e.is_repo, e.is_symlink])).toEqual([
      ['alias', true, true],
      ['alpha', true, false],
      ['beta', true, false],
    ])
    const hidden = await get(`?path=${encodeURIComponent(join(home, 'code'))}&hidden=1`)
    expect(hidden.body.entries.map((e: Entry) => e.name)).toEqual(['.hidden', 'alias', 'alpha', 'beta'])
  })

  it('refuses /etc, a symlink escaping home and .. tricks with 403', async () => {
    for (const p of ['/etc', '/', join(home, 'code/escape'), join(home, 'code/escape/secret'), `${home}/../`, `${home}/code/../../${outside.split('/').pop()}`]) {
      const r = await get(`?path=${encodeURIComponent(p)}`)
      expect([p, r.status, r.body]).toEqual([p, 403, 'path is outside the browsable roots'])
    }
  })

  it('answers a missing path outside the roots exactly like an existing one', async () => {
    const missing = await get(`?path=${encodeURIComponent('/etc/definitely-not-here-xyz')}`)
    const existing = await get(`?path=${encodeURIComponent('/etc')}`)
    expect(missing).toEqual(existing)
  })

  it('reports a missing directory inside a root as 404, a file as 404, a relative path as 400', async () => {
    expect(await get(`?path=${encodeURIComponent(join(home, 'nope'))}`)).toMatchObject({ status: 404, body: 'no such directory' })
    expect(await get(`?path=${encodeURIComponent(join(home, 'code/notes.txt'))}`)).toMatchObject({ status: 404, body: 'not a directory' })
    expect(await get('?path=code')).toMatchObject({ status: 400, body: 'path must be absolute' })
  })

  it('needs a bearer', async () => {
    const res = await b.request('/browse', { token: null })
    expect(res.status).toBe(401)
    expect(await res.text()).toBe('unauthorized')
  })
})

describe('deriveRoots', () => {
  it('adds parents of space dirs, drops ancestors of home and nested roots', () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'roots-home-')))
    const other = realpathSync(mkdtempSync(join(tmpdir(), 'roots-other-')))
    mkdirSync(join(other, 'proj/sub'), { recursive: true })
    try {
      const roots = deriveRoots(home, [join(home, 'x'), home, join(other, 'proj'), join(other, 'proj/sub'), '/'])
      expect(roots).toEqual([
        { path: home, label: '~', kind: 'home' },
        { path: other, label: other.split('/').pop(), kind: 'project' },
      ])
    } finally {
      rmSync(home, { recursive: true, force: true })
      rmSync(other, { recursive: true, force: true })
    }
  })
})

describe('listDirectory limit', () => {
  it('cuts at the limit in name order and says so', async () => {
    const { listDirectory } = await import('../../plugins/browse/list.ts')
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'browse-many-')))
    try {
      for (const n of ['d', 'B', 'a', 'c']) mkdirSync(join(dir, n))
      const roots = [{ path: dir, label: '~', kind: 'home' as const }]
      const r = listDirectory(dir, roots, { hidden: false, openWorkspaces: new Map(), limit: 3 })
      expect([r.entries.map((e) => e.name), r.truncated, r.limit]).toEqual([['a', 'B', 'c'], true, 3])
      const all = listDirectory(dir, roots, { hidden: false, openWorkspaces: new Map(), limit: 4 })
      expect([all.entries.length, all.truncated]).toEqual([4, false])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
