import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { join } from 'node:path'
import { rmSync, mkdirSync, writeFileSync, existsSync } from 'node:fs'
import { startStack, type Stack } from '../harness/stack.ts'
import { makeRepo, openRepo, tempDir, type Repo } from '../diff/repo.ts'
import { shellPane } from '../diff/panes.ts'

let stack: Stack
let repo: Repo
let wtParent: string
const dirs: string[] = []

beforeAll(async () => {
  stack = await startStack({ sessions: ['default', 'work'] })
  repo = makeRepo({ files: { 'README.md': 'hello\n' } })
  wtParent = tempDir('wts-')
  dirs.push(wtParent)
})
afterAll(async () => {
  await stack?.close()
  repo?.cleanup()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const info = (ws: string, token?: string | null) => stack.bridge.request(`/branch-info?workspace_id=${encodeURIComponent(ws)}`, { token })
const del = (json: unknown, token?: string | null) => stack.bridge.request('/branch-delete', { method: 'POST', json, token })

async function expectJson(res: Response, status: number, body: unknown) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  expect({ status: res.status, body: await res.json() }).toEqual({ status, body })
}

/** A linked worktree on `branch`, opened as a space through the simulator. */
async function worktree(branch: string, source = repo): Promise<{ workspace: string; path: string; wt: Repo }> {
  const path = join(wtParent, branch.replace(/\//g, '-'))
  const r = await stack.sim.request('worktree.create', { cwd: source.dir, branch, path, focus: false })
  return { workspace: r.workspace.workspace_id, path, wt: openRepo(path, path) }
}

async function remove(workspace: string) {
  const r = await stack.sim.request('worktree.remove', { workspace_id: workspace, force: true })
  expect(r.type).toBe('worktree_removed')
}

const nothing = (workspace_id: string, blocked_reason: string, repo_root = '', checkout_path = '') => ({
  workspace_id,
  repo_root,
  checkout_path,
  branch: '',
  default_branch: '',
  is_default: false,
  checked_out_elsewhere: [],
  merged: false,
  merged_into: '',
  unmerged_commits: 0,
  upstream: '',
  deletable: false,
  blocked_reason,
})

describe('GET /branch-info', () => {
  it('a fresh worktree branch: merged into main, deletable', async () => {
    const { workspace, path } = await worktree('fresh')
    await expectJson(await info(workspace), 200, {
      workspace_id: workspace,
      repo_root: repo.dir,
      checkout_path: path,
      branch: 'fresh',
      default_branch: 'main',
      is_default: false,
      checked_out_elsewhere: [],
      merged: true,
      merged_into: 'main',
      unmerged_commits: 0,
      upstream: '',
      deletable: true,
      blocked_reason: '',
    })
  })

  it('unmerged commits are counted and still deletable (with force)', async () => {
    const { workspace, wt } = await worktree('ahead')
    wt.commit('one', { 'a.txt': '1\n' })
    wt.commit('two', { 'a.txt': '2\n' })
    const body = await (await info(workspace)).json()
    expect(body).toMatchObject({ branch: 'ahead', merged: false, merged_into: '', unmerged_commits: 2, deletable: true, blocked_reason: '' })
  })

  it('nothing to offer: main checkout, plain directory, detached HEAD', async () => {
    // A workspace opened on the main checkout (worktree.open with cwd = path = the repo).
    const opened = await stack.sim.request('worktree.open', { cwd: repo.dir, path: repo.dir, focus: false })
    await expectJson(await info(opened.workspace.workspace_id), 200, nothing(opened.workspace.workspace_id, "this space is the repository's main checkout", repo.dir, repo.dir))

    const plainDir = tempDir('plain-')
    dirs.push(plainDir)
    const plain = await shellPane(stack, plainDir)
    await expectJson(await info(plain.workspace), 200, nothing(plain.workspace, 'this space is not a git worktree'))

    const { workspace, path } = await worktree('to-detach')
    openRepo(path).git('checkout', '-q', '--detach')
    await expectJson(await info(workspace), 200, nothing(workspace, 'this worktree is on a detached HEAD, not a branch', repo.dir, path))
  })

  it('the default branch is never deletable; a branch held by another worktree neither', async () => {
    // Move the main checkout off main so a worktree can hold main.
    const other = makeRepo({ files: { x: '1\n' } })
    dirs.push(other.dir)
    other.git('checkout', '-q', '-b', 'side')
    const onMain = await worktree('main', other)
    const body = await (await info(onMain.workspace)).json()
    expect(body).toMatchObject({
      branch: 'main',
      default_branch: 'main',
      is_default: true,
      deletable: false,
      blocked_reason: "main is the repository's default branch and is never deleted",
    })

    // A second worktree holding the same branch (git allows it with --force).
    const held = await worktree('shared', other)
    const second = join(wtParent, 'shared-2')
    other.git('worktree', 'add', '-q', '-f', second, 'shared')
    const heldInfo = await (await info(held.workspace)).json()
    expect(heldInfo).toMatchObject({ branch: 'shared', checked_out_elsewhere: [second], deletable: false, blocked_reason: `shared is checked out in another worktree (${second})` })
  })

  it('the default comes from the remote HEAD first', async () => {
    const origin = makeRepo({ branch: 'trunk', files: { x: '1\n' } })
    dirs.push(origin.dir)
    const parent = tempDir('clone-')
    dirs.push(parent)
    const clone = openRepo(join(parent, 'c'))
    openRepo(parent).git('clone', '-q', origin.dir, clone.dir)
    clone.git('branch', 'main') // exists locally but is not the trunk
    const { workspace } = await worktree('topic', clone)
    const body = await (await info(workspace)).json()
    expect(body).toMatchObject({ default_branch: 'trunk', merged: true, merged_into: 'trunk', deletable: true })
  })

  it('errors: missing workspace_id 400, unknown session 404, no bearer 401, POST 405', async () => {
    await expectJson(await stack.bridge.request('/branch-info'), 400, { error: 'want ?workspace_id=<workspace_id>' })
    await expectJson(await info('nosuch/w1'), 404, { error: 'session nosuch not found' })
    expect((await info('w1', null)).status).toBe(401)
    const post = await stack.bridge.request('/branch-info?workspace_id=w1', { method: 'POST' })
    expect(post.status).toBe(405)
    expect(await post.json()).toEqual({ error: 'GET only' })
  })

  it('a session-qualified workspace id is accepted and echoed', async () => {
    const r = await stack.sim.request('worktree.create', { cwd: repo.dir, branch: 'in-work', path: join(wtParent, 'in-work'), focus: false }, 'work')
    const qualified = `work/${r.workspace.workspace_id}`
    const body = await (await info(qualified)).json()
    expect(body).toMatchObject({ workspace_id: qualified, branch: 'in-work', deletable: true })
  })
})

describe('POST /branch-delete', () => {
  it('preflight, worktree.remove, then delete a merged branch (force on merged reports forced:false)', async () => {
    const { workspace } = await worktree('done-work')
    const pre = await (await info(workspace)).json()
    expect(pre.deletable).toBe(true)
    const sha = repo.git('rev-parse', 'refs/heads/done-work').trim()
    // Still checked out in its worktree: refused.
    const held = await del({ repo_root: pre.repo_root, branch: 'done-work', force: true })
    expect(held.status).toBe(409)
    expect((await held.json()).error).toMatch(/^done-work is checked out in .*done-work; it is never deleted$/)
    await remove(workspace)
    await expectJson(await del({ repo_root: pre.repo_root, branch: 'done-work', force: true }), 200, {
      branch: 'done-work',
      deleted: true,
      forced: false,
      merged: true,
      merged_into: 'main',
      sha,
      upstream: '',
      remote_deleted: false,
    })
    expect(repo.gitTry('rev-parse', '--verify', '--quiet', 'refs/heads/done-work')).not.toBe(0)
  })

  it('unmerged: 409 without force, deleted with force (forced:true)', async () => {
    const { workspace, wt } = await worktree('wip')
    const sha = wt.commit('wip', { 'w.txt': 'w\n' })
    await remove(workspace)
    await expectJson(await del({ repo_root: repo.dir, branch: 'wip' }), 409, { error: 'wip has 1 commit(s) not merged into main; delete with force to drop them' })
    await expectJson(await del({ repo_root: repo.dir, branch: 'wip', force: false }), 409, { error: 'wip has 1 commit(s) not merged into main; delete with force to drop them' })
    await expectJson(await del({ repo_root: repo.dir, branch: 'wip', force: true }), 200, {
      branch: 'wip',
      deleted: true,
      forced: true,
      merged: false,
      merged_into: '',
      sha,
      upstream: '',
      remote_deleted: false,
    })
  })

  it('repository hooks never run', async () => {
    const hooks = tempDir('hooks-')
    dirs.push(hooks)
    writeFileSync(join(hooks, 'reference-transaction'), '#!/bin/sh\necho ran >> "$0.log"\nexit 1\n', { mode: 0o755 })
    repo.git('branch', 'hooked')
    repo.git('config', 'core.hooksPath', hooks)
    try {
      const res = await del({ repo_root: repo.dir, branch: 'hooked' })
      expect(res.status).toBe(200)
      expect(existsSync(join(hooks, 'reference-transaction.log'))).toBe(false)
    } finally {
      repo.git('config', '--unset', 'core.hooksPath')
    }
  })

  it('the default branch and a checked-out branch are refused even with force', async () => {
    await expectJson(await del({ repo_root: repo.dir, branch: 'main', force: true }), 409, { error: 'main is the default branch; it is never deleted' })
    repo.git('branch', 'parked')
    repo.git('checkout', '-q', 'parked')
    try {
      await expectJson(await del({ repo_root: repo.dir, branch: 'parked', force: true }), 409, { error: `parked is checked out in ${repo.dir}; it is never deleted` })
    } finally {
      repo.git('checkout', '-q', 'main')
    }
  })

  it('no determinable default: nothing is deletable', async () => {
    const r = makeRepo({ branch: 'odd', files: { x: '1\n' } })
    dirs.push(r.dir)
    r.git('branch', 'feature')
    await expectJson(await del({ repo_root: r.dir, branch: 'feature', force: true }), 409, {
      error: `cannot tell which branch is the default in ${r.dir}; refusing to delete feature`,
    })
  })

  it('merged only into the remote-tracking default: git may refuse with 409 and its message', async () => {
    const origin = makeRepo({ files: { x: '1\n' } })
    dirs.push(origin.dir)
    const parent = tempDir('clone-')
    dirs.push(parent)
    const clone = openRepo(join(parent, 'c'))
    openRepo(parent).git('clone', '-q', origin.dir, clone.dir)
    // `feat` gets merged upstream only; the local main is behind.
    origin.git('checkout', '-q', '-b', 'feat')
    origin.commit('feat', { f: '1\n' })
    origin.git('checkout', '-q', 'main')
    origin.git('merge', '-q', '--ff-only', 'feat')
    clone.git('fetch', '-q')
    clone.git('branch', '--no-track', 'feat', 'origin/feat')
    const res = await del({ repo_root: clone.dir, branch: 'feat' })
    expect(res.status).toBe(409)
    expect((await res.json()).error).toMatch(/^git refused to delete feat: error: .*not fully merged/)
  })

  it('bad input: 400 for body, repo_root, option-shaped branch, not a repository; 404 no such branch', async () => {
    await expectJson(await del({ branch: 'x' }), 400, { error: 'want {repo_root: string, branch: string, force?: bool}' })
    await expectJson(await del({ repo_root: repo.dir, branch: 'x', force: 'yes' }), 400, { error: 'want {repo_root: string, branch: string, force?: bool}' })
    const bad = await stack.bridge.request('/branch-delete', { method: 'POST', body: '{nope', headers: { 'content-type': 'application/json' } })
    expect(bad.status).toBe(400)
    await expectJson(await del({ repo_root: repo.dir, branch: '--delete' }), 400, { error: "bad branch: --delete (a branch name cannot start with '-')" })
    await expectJson(await del({ repo_root: repo.dir, branch: '@{-1}' }), 400, { error: 'bad branch: @{-1} is not a valid branch name' })
    for (const root of ['relative/path', `${repo.dir}/../${repo.dir.split('/').pop()}`, `${repo.dir}/`, join(repo.dir, 'missing')]) {
      await expectJson(await del({ repo_root: root, branch: 'x' }), 400, { error: `bad repo_root: ${root} (want an absolute, canonical path of an existing directory)` })
    }
    const plain = tempDir('plain-')
    dirs.push(plain)
    mkdirSync(join(plain, 'd'))
    await expectJson(await del({ repo_root: plain, branch: 'x' }), 400, { error: `not a git repository: ${plain}` })
    await expectJson(await del({ repo_root: repo.dir, branch: 'no-such-branch' }), 404, { error: 'no local branch named no-such-branch' })
    expect((await del({ repo_root: repo.dir, branch: 'x' }, null)).status).toBe(401)
    expect((await stack.bridge.request('/branch-delete')).status).toBe(405)
  })
})
