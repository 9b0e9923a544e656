import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { createBranchReader } from '../../plugins/snapshot/model.ts'

const run = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' }).toString()

let root: string
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'branch-')))
  mkdirSync(join(root, 'repo/sub/deeper'), { recursive: true })
  run(join(root, 'repo'), 'init', '-q')
  run(join(root, 'repo'), 'commit', '-q', '--allow-empty', '-m', 'one')
  run(join(root, 'repo'), 'branch', 'feature/x')
  run(join(root, 'repo'), 'worktree', 'add', '-q', join(root, 'wt'), 'feature/x')
  mkdirSync(join(root, 'detached'))
  run(join(root, 'detached'), 'init', '-q')
  run(join(root, 'detached'), 'commit', '-q', '--allow-empty', '-m', 'one')
  run(join(root, 'detached'), 'checkout', '-q', '--detach')
  mkdirSync(join(root, 'unborn'))
  run(join(root, 'unborn'), 'init', '-q', '-b', 'fresh')
  mkdirSync(join(root, 'plain'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('branch of a directory', () => {
  it('reads the branch of repos, subdirectories, linked worktrees and unborn branches; empty otherwise', async () => {
    const branch = createBranchReader()
    expect(await branch(join(root, 'repo'))).toBe('main')
    expect(await branch(join(root, 'repo/sub/deeper'))).toBe('main')
    expect(await branch(join(root, 'wt'))).toBe('feature/x')
    expect(await branch(join(root, 'unborn'))).toBe('fresh')
    expect(await branch(join(root, 'detached'))).toBe('')
    expect(await branch(join(root, 'plain'))).toBe('')
    expect(await branch(join(root, 'repo/.git'))).toBe('')
    expect(await branch(join(root, 'does-not-exist'))).toBe('')
    expect(await branch(undefined)).toBe('')
  })

  it('reuses a HEAD read briefly, then sees a checkout', async () => {
    let t = 1_000_000
    const branch = createBranchReader({ now: () => t })
    const dir = join(root, 'repo')
    expect(await branch(dir)).toBe('main')
    run(dir, 'checkout', '-q', '-b', 'next')
    try {
      expect(await branch(dir)).toBe('main')
      t += 1_001
      expect(await branch(dir)).toBe('next')
      run(dir, 'checkout', '-q', '--detach')
      t += 1_001
      expect(await branch(dir)).toBe('')
    } finally {
      run(dir, 'checkout', '-q', 'main')
    }
  })

  it('notices a directory that became a repository once the miss expires', async () => {
    let t = 5_000_000
    const branch = createBranchReader({ now: () => t })
    const dir = join(root, 'later')
    mkdirSync(dir)
    expect(await branch(dir)).toBe('')
    run(dir, 'init', '-q', '-b', 'late')
    expect(await branch(dir)).toBe('')
    t += 5_001
    expect(await branch(dir)).toBe('late')
  })

  it('shares one lookup between concurrent callers', async () => {
    const branch = createBranchReader()
    const dirs = Array.from({ length: 20 }, () => join(root, 'repo/sub'))
    expect(await Promise.all(dirs.map(branch))).toEqual(dirs.map(() => 'main'))
  })
})
