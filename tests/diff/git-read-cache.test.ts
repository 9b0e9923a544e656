/**
 * readGit remembers the repository layout, remote names, trunk refs and ahead/behind counts
 * between requests (lib/git/layout.ts, refs-cache.ts). These tests let an answer be cached,
 * prove the cache served it, then change what it was read from and expect the very next read
 * to see the change.
 */
import { describe, it, expect, afterEach } from 'vitest'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { readGit } from '../../lib/git/status.ts'
import { cacheHits, RACY_MS } from '../../lib/git/file-signature.ts'
import { makeRepo, openRepo, tempDir, gitEnv, type Repo } from './repo.ts'

const env = gitEnv
const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})
function repo(opts?: Parameters<typeof makeRepo>[0]): Repo {
  const r = makeRepo(opts)
  cleanups.push(r.cleanup)
  return r
}

/** An answer read within RACY_MS of its files' last change is not kept; let that window pass. */
const settle = () => new Promise((r) => setTimeout(r, RACY_MS * 3))

/** Reads twice after the racy window and checks the second read came from the caches. */
async function cachedRead(dir: string) {
  // On a loaded machine a read can still fall inside the racy window; a few tries prove the
  // caches do serve reads, which is what the checks after it rely on.
  for (let attempt = 0; ; attempt++) {
    await settle()
    await readGit(dir, { env })
    const before = { ...cacheHits }
    const read = await readGit(dir, { env })
    const hit = cacheHits.layout > before.layout && cacheHits.refs > before.refs
    if (hit || attempt === 4) {
      expect(cacheHits.layout).toBeGreaterThan(before.layout)
      expect(cacheHits.refs).toBeGreaterThan(before.refs)
      return read.git
    }
  }
}

describe('readGit caches: a change is seen by the next read', () => {
  it('a remote added, fetched and given a HEAD; the trunk moving ahead', async () => {
    const upstream = repo({ files: { 'a.txt': 'a\n' } })
    const r = repo({ files: { 'a.txt': 'a\n' } })
    // Share upstream's root commit: two repos made in different seconds have different ones.
    r.git('fetch', '-q', upstream.dir, 'main')
    r.git('reset', '-q', '--hard', 'FETCH_HEAD')
    r.git('checkout', '-q', '-b', 'feature')
    r.commit('f1', { 'f.txt': 'f\n' })

    let git = await cachedRead(r.dir)
    expect([git.remote, git.default_ref, git.ahead, git.behind]).toEqual(['', 'main', 1, 0])

    r.git('remote', 'add', 'up', upstream.dir)
    git = (await readGit(r.dir, { env })).git
    expect([git.remote, git.default_ref]).toEqual(['up', 'main'])

    git = await cachedRead(r.dir)
    r.git('fetch', '-q', 'up')
    git = (await readGit(r.dir, { env })).git
    expect([git.default_branch, git.default_ref]).toEqual(['main', 'up/main'])

    await cachedRead(r.dir)
    upstream.commit('u1', { 'u.txt': 'u\n' })
    r.git('fetch', '-q', 'up')
    git = (await readGit(r.dir, { env })).git
    expect([git.default_ref, git.ahead, git.behind]).toEqual(['up/main', 1, 1])

    await cachedRead(r.dir)
    upstream.git('branch', '-q', 'trunk')
    r.git('fetch', '-q', 'up')
    r.git('remote', 'set-head', 'up', 'trunk')
    git = (await readGit(r.dir, { env })).git
    expect([git.default_branch, git.default_ref, git.ahead, git.behind]).toEqual(['trunk', 'up/trunk', 1, 1])
  })

  it('the local trunk moving, and HEAD catching up with it, change ahead/behind at once', async () => {
    const r = repo({ files: { 'a.txt': 'a\n' } })
    r.git('checkout', '-q', '-b', 'feature')
    await cachedRead(r.dir)
    r.git('checkout', '-q', 'main')
    r.commit('m1', { 'm.txt': 'm\n' })
    r.git('checkout', '-q', 'feature')
    expect((await readGit(r.dir, { env })).git).toMatchObject({ default_ref: 'main', ahead: 0, behind: 1 })
    await cachedRead(r.dir)
    r.git('merge', '-q', '--ff-only', 'main')
    expect((await readGit(r.dir, { env })).git).toMatchObject({ branch: 'feature', ahead: 0, behind: 0 })
  })

  it('a repository created inside the cached top level takes over its directory', async () => {
    const r = repo({ files: { 'sub/a.txt': 'a\n' } })
    const sub = join(r.dir, 'sub')
    expect((await cachedRead(sub)).root).toBe(r.dir)
    makeRepo({ dir: sub })
    const { git } = await readGit(sub, { env })
    expect([git.root, git.branch]).toEqual([sub, 'main'])
  })

  it('a removed linked worktree is no repository; a remote in the main config shows in the worktree', async () => {
    const r = repo({ files: { 'a.txt': 'a\n' } })
    const base = tempDir('diff-wt-')
    cleanups.push(() => rmSync(base, { recursive: true, force: true }))
    const wt = join(base, 'wt')
    r.git('worktree', 'add', '-q', '-b', 'feature', wt)
    expect((await cachedRead(wt)).root).toBe(wt)
    r.git('remote', 'add', 'origin', r.dir)
    expect((await readGit(wt, { env })).git.remote).toBe('origin')
    await cachedRead(wt)
    r.git('worktree', 'remove', '--force', wt)
    mkdirSync(wt)
    expect((await readGit(wt, { env })).git.repo).toBe(false)
    openRepo(wt) // still a plain directory
  })
})
