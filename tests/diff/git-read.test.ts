import { describe, it, expect, afterEach } from 'vitest'
import { symlinkSync, writeFileSync, rmSync, mkdirSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { readGit, readGitContext } from '../../lib/git/status.ts'
import { GitFailure } from '../../lib/git/run.ts'
import { BINARY_SENTENCE, TRUNCATED_MARKER } from '../../lib/git/untracked.ts'
import { makeRepo, openRepo, tempDir, numbered, gitEnv, type Repo } from './repo.ts'

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

describe('readGit: file statuses', () => {
  it('reports each status with counts and one diff section per file', async () => {
    const r = repo({ files: { 'a.txt': 'one\ntwo\nthree\n', 'gone.txt': 'bye\n', 'old name.txt': numbered(20), 'both.txt': 'x\n' } })
    r.write('a.txt', 'one\nTWO\nthree\nfour\n') // modified, unstaged
    r.git('rm', '-q', 'gone.txt') // deleted
    r.git('mv', 'old name.txt', 'new name.txt') // renamed with edits
    r.write('new name.txt', numbered(20).replace('line 3\n', 'line three\n'))
    r.write('added.txt', 'fresh\n')
    r.git('add', 'added.txt') // added
    r.write('both.txt', 'x\ny\n')
    r.git('add', 'both.txt')
    r.write('both.txt', 'x\ny\nz\n') // staged and unstaged in one file
    r.write('dir/sub/nested.txt', 'n1\nn2\n') // untracked directory, expanded

    const { git, files } = await readGit(r.dir, { diff: true, env })
    expect(files.map((f) => [f.path, f.status, f.old_path ?? null, f.additions, f.deletions])).toEqual([
      ['a.txt', 'modified', null, 2, 1],
      ['added.txt', 'added', null, 1, 0],
      ['both.txt', 'modified', null, 2, 0],
      ['gone.txt', 'deleted', null, 0, 1],
      ['new name.txt', 'renamed', 'old name.txt', 1, 1],
      ['dir/sub/nested.txt', 'untracked', null, 2, 0],
    ])
    const byPath = Object.fromEntries(files.map((f) => [f.path, f.diff]))
    expect(byPath['a.txt']).toBe(
      'diff --git a/a.txt b/a.txt\nindex 4c1b2c7..d7b6f5e 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n+four\n'.replace(
        /index \S+/,
        byPath['a.txt'].match(/index \S+/)![0],
      ),
    )
    expect(byPath['new name.txt']).toMatch(/^diff --git a\/old name.txt b\/new name.txt\n/)
    expect(byPath['new name.txt']).toContain('rename from old name.txt\nrename to new name.txt\n')
    expect(byPath['new name.txt'].match(/^diff --git /gm)).toHaveLength(1)
    expect(byPath['dir/sub/nested.txt']).toBe('--- /dev/null\n+++ b/dir/sub/nested.txt\n+n1\n+n2\n')
    expect(git).toMatchObject({ repo: true, branch: 'main', dirty: true, changed: 6 })
    expect(git.operation).toBeUndefined()
  })

  it('binary files: tracked ones use git, untracked ones the fixed sentence', async () => {
    const r = repo({ files: { 'img.bin': Buffer.from([0, 1, 2, 3]) } })
    r.write('img.bin', Buffer.from([0, 1, 2, 4, 5]))
    r.write('new.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0xff]))
    r.write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])) // invalid UTF-8
    const { files } = await readGit(r.dir, { diff: true, env })
    const img = files.find((f) => f.path === 'img.bin')!
    expect(img.status).toBe('modified')
    expect(img.diff).toContain('Binary files a/img.bin and b/img.bin differ')
    expect(files.find((f) => f.path === 'new.bin')).toEqual({ path: 'new.bin', status: 'untracked', additions: 0, deletions: 0, diff: BINARY_SENTENCE })
    expect(files.find((f) => f.path === 'latin1.txt')!.diff).toBe(BINARY_SENTENCE)
  })

  it('caps an untracked 100 KB file at 64 KB with the truncation marker', async () => {
    const r = repo({ files: { x: 'x\n' } })
    const line = 'abcdefghij'.repeat(9) + '\n' // 91 bytes
    const body = line.repeat(Math.ceil((100 * 1024) / line.length))
    r.write('big.txt', body)
    const { files } = await readGit(r.dir, { diff: true, env })
    const big = files.find((f) => f.path === 'big.txt')!
    const lines = big.diff.split('\n')
    expect(lines[0]).toBe('--- /dev/null')
    expect(lines[1]).toBe('+++ b/big.txt')
    expect(lines.at(-2)).toBe(TRUNCATED_MARKER)
    expect(lines.at(-1)).toBe('')
    const content = lines.slice(2, -2)
    expect(content.every((l) => l.startsWith('+'))).toBe(true)
    expect(content.map((l) => l.slice(1)).join('\n')).toBe(body.slice(0, 64 * 1024))
    expect(big.additions).toBe(content.length)
  })

  it('an untracked symlink shows its target and is never followed', async () => {
    const r = repo({ files: { x: 'x\n' } })
    symlinkSync('/etc/passwd', join(r.dir, 'link'))
    const { files } = await readGit(r.dir, { diff: true, env })
    expect(files).toEqual([{ path: 'link', status: 'untracked', additions: 1, deletions: 0, diff: '--- /dev/null\n+++ b/link\n+/etc/passwd\n' }])
  })

  it('repository config cannot swap in an external diff, a textconv or other prefixes', async () => {
    const r = repo({ files: { 'a.txt': 'one\n', '.gitattributes': 'a.txt diff=conv\n' } })
    r.git('config', 'diff.external', '/bin/false')
    r.git('config', 'diff.conv.textconv', 'tr a-z A-Z')
    r.git('config', 'diff.noprefix', 'true')
    r.git('config', 'diff.relative', 'true')
    r.write('a.txt', 'two\n')
    const { files } = await readGit(r.dir, { diff: true, env: { ...env, GIT_EXTERNAL_DIFF: '/bin/false' } })
    expect(files).toHaveLength(1)
    expect(files[0]).toMatchObject({ path: 'a.txt', additions: 1, deletions: 1 })
    expect(files[0].diff).toContain('--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n')
  })

  it('clean tree: files empty, not dirty', async () => {
    const r = repo({ files: { x: 'x\n' } })
    const { git, files } = await readGit(r.dir, { diff: true, env })
    expect(files).toEqual([])
    expect(git).toMatchObject({ dirty: false, changed: 0 })
  })
})

describe('readGit: the git context', () => {
  it('not a repository: repo false, every field zero-valued', async () => {
    const dir = tempDir('norepo-')
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    expect(await readGit(dir, { diff: true, env })).toEqual({
      git: { repo: false, root: '', branch: '', default_branch: '', default_ref: '', remote: '', upstream: '', ahead: 0, behind: 0, dirty: false, changed: 0 },
      files: [],
    })
  })

  it('a corrupt repository is a GitFailure naming git status', async () => {
    const r = repo({ files: { x: 'x\n' } })
    writeFileSync(join(r.dir, '.git/index'), 'garbage, not an index')
    const err = await readGit(r.dir, { diff: true, env }).catch((e) => e)
    expect(err).toBeInstanceOf(GitFailure)
    expect(err.message).toMatch(/^git status \.\.\.: .*index/)
  })

  it('unborn branch: names itself, staged and untracked files are listed, no ahead/behind', async () => {
    const r = repo({ branch: 'trunk' })
    r.write('a.txt', 'a\nb\n')
    r.git('add', 'a.txt')
    r.write('u.txt', 'u\n')
    const { git, files } = await readGit(r.dir, { diff: true, env })
    expect(git).toEqual({ repo: true, root: r.dir, branch: 'trunk', default_branch: '', default_ref: '', remote: '', upstream: '', ahead: 0, behind: 0, dirty: true, changed: 2 })
    expect(files.map((f) => [f.path, f.status, f.additions])).toEqual([
      ['a.txt', 'added', 2],
      ['u.txt', 'untracked', 1],
    ])
    expect(files[0].diff).toMatch(/^diff --git a\/a.txt b\/a.txt\nnew file mode 100644\n/)
  })

  it('detached HEAD: empty branch', async () => {
    const r = repo({ files: { x: '1\n' } })
    r.commit('two', { x: '2\n' })
    r.git('checkout', '-q', '--detach', 'HEAD~1')
    const g = await readGitContext(r.dir, { env })
    expect(g.branch).toBe('')
    expect(g).toMatchObject({ default_branch: 'main', default_ref: 'main', ahead: 0, behind: 1 })
  })

  it('local fallback: master, counted against the local branch', async () => {
    const r = repo({ branch: 'master', files: { x: '1\n' } })
    r.git('checkout', '-q', '-b', 'feature')
    r.commit('f1', { f: '1\n' })
    r.commit('f2', { f: '2\n' })
    const g = await readGitContext(r.dir, { env })
    expect(g).toMatchObject({ branch: 'feature', default_branch: 'master', default_ref: 'master', remote: '', upstream: '', ahead: 2, behind: 0 })
  })

  it('neither main nor master and no remote HEAD: empty default', async () => {
    const r = repo({ branch: 'develop', files: { x: '1\n' } })
    const g = await readGitContext(r.dir, { env })
    expect(g).toMatchObject({ default_branch: '', default_ref: '', ahead: 0, behind: 0 })
  })

  it("remote with HEAD: the remote's HEAD wins, upstream, ahead and behind", async () => {
    const origin = repo({ branch: 'trunk', files: { x: '1\n' } })
    origin.git('branch', 'main') // a `main` exists but is not the trunk
    const parent = tempDir('clone-')
    const clone = openRepo(join(parent, 'c'), parent)
    cleanups.push(clone.cleanup)
    openRepo(parent).git('clone', '-q', origin.dir, clone.dir)
    clone.git('checkout', '-q', '-b', 'feat', '--track', 'origin/trunk')
    clone.commit('mine', { m: '1\n' })
    origin.commit('theirs1', { t: '1\n' })
    origin.commit('theirs2', { t: '2\n' })
    clone.git('fetch', '-q')
    clone.git('remote', 'add', 'aaa', origin.dir) // sorts first, but origin is preferred
    const g = await readGitContext(clone.dir, { env })
    expect(g).toEqual({
      repo: true,
      root: clone.dir,
      branch: 'feat',
      default_branch: 'trunk',
      default_ref: 'origin/trunk',
      remote: 'origin',
      upstream: 'origin/trunk',
      ahead: 1,
      behind: 2,
      dirty: false,
      changed: 0,
    })
  })

  it('a remote without HEAD: remote-tracking main before local main; first remote when no origin', async () => {
    const up = repo({ files: { x: '1\n' } })
    up.commit('two', { x: '2\n' })
    const r = repo({ files: { y: 'mine\n' } })
    r.git('remote', 'add', 'upstream', up.dir)
    r.git('fetch', '-q', 'upstream')
    const g = await readGitContext(r.dir, { env })
    expect(g).toMatchObject({ remote: 'upstream', default_branch: 'main', default_ref: 'upstream/main', upstream: '' })
    // Unrelated histories: both sides count their own commits.
    expect(g.ahead).toBe(1)
    expect(g.behind).toBe(2)
  })

  it('merge in progress: operation merge, conflicted file listed', async () => {
    const r = repo({ files: { 'c.txt': 'base\n' } })
    r.git('checkout', '-q', '-b', 'other')
    r.commit('other', { 'c.txt': 'other\n' })
    r.git('checkout', '-q', 'main')
    r.commit('main', { 'c.txt': 'main\n' })
    expect(r.gitTry('merge', 'other')).not.toBe(0)
    const { git, files } = await readGit(r.dir, { diff: true, env })
    expect(git.operation).toBe('merge')
    expect(files.map((f) => [f.path, f.status])).toEqual([['c.txt', 'modified']])
    expect(files[0].diff).toContain('+<<<<<<< HEAD')
  })

  it('rebase and cherry-pick in progress are named from the marker files', async () => {
    const r = repo({ files: { 'c.txt': 'base\n' } })
    r.git('checkout', '-q', '-b', 'topic')
    r.commit('topic', { 'c.txt': 'topic\n' })
    r.git('checkout', '-q', 'main')
    r.commit('main', { 'c.txt': 'main\n' })
    r.git('checkout', '-q', 'topic')
    expect(r.gitTry('rebase', 'main')).not.toBe(0)
    expect((await readGitContext(r.dir, { env })).operation).toBe('rebase')
    r.git('rebase', '--abort')
    r.git('checkout', '-q', 'main')
    expect(r.gitTry('cherry-pick', 'topic')).not.toBe(0)
    expect((await readGitContext(r.dir, { env })).operation).toBe('cherry-pick')
    r.git('cherry-pick', '--abort')
    expect((await readGitContext(r.dir, { env })).operation).toBeUndefined()
  })

  it('linked worktree: its own root, branch and changes', async () => {
    const r = repo({ files: { x: '1\n' } })
    const wt = join(tempDir('wt-'), 'feature-wt')
    cleanups.push(() => rmSync(join(wt, '..'), { recursive: true, force: true }))
    r.git('worktree', 'add', '-q', '-b', 'feature', wt)
    writeFileSync(join(wt, 'x'), '2\n')
    const { git, files } = await readGit(wt, { diff: true, env })
    expect(git).toMatchObject({ repo: true, root: wt, branch: 'feature', default_branch: 'main', default_ref: 'main', changed: 1 })
    expect(files.map((f) => f.path)).toEqual(['x'])
    // The main checkout is untouched.
    expect((await readGitContext(r.dir, { env })).changed).toBe(0)
  })

  it('a symlinked cwd reports the resolved root; a subdirectory cwd still lists root-relative paths', async () => {
    const r = repo({ files: { 'sub/a.txt': 'a\n', 'top.txt': 't\n' } })
    r.write('top.txt', 'T\n')
    const links = tempDir('links-')
    cleanups.push(() => rmSync(links, { recursive: true, force: true }))
    symlinkSync(r.dir, join(links, 'via-link'))
    const viaLink = await readGit(join(links, 'via-link', 'sub'), { diff: true, env })
    expect(viaLink.git.root).toBe(realpathSync(r.dir))
    expect(viaLink.files.map((f) => f.path)).toEqual(['top.txt'])
  })

  it('context only: same git object, files empty', async () => {
    const r = repo({ files: { x: '1\n' } })
    r.write('x', '2\n')
    mkdirSync(join(r.dir, 'd'))
    r.write('d/u', 'u\n')
    const full = await readGit(r.dir, { diff: true, env })
    const ctxOnly = await readGit(r.dir, { env })
    expect(ctxOnly.files).toEqual([])
    expect(ctxOnly.git).toEqual(full.git)
    expect(full.git.changed).toBe(full.files.length)
  })
})
