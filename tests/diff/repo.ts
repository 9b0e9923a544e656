/** Real git repositories in temp dirs for the diff and branch tests. */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

const ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  GIT_MERGE_AUTOEDIT: 'no',
}

export interface Repo {
  dir: string
  git(...args: string[]): string
  /** git that may fail; returns the exit status. */
  gitTry(...args: string[]): number
  write(path: string, content: string | Buffer): void
  commit(message: string, files?: Record<string, string | Buffer>): string
  cleanup(): void
}

export function tempDir(prefix = 'diff-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

export function openRepo(dir: string, cleanupDir = dir): Repo {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  const repo: Repo = {
    dir,
    git,
    gitTry(...args) {
      try {
        git(...args)
        return 0
      } catch (err) {
        return (err as { status?: number }).status ?? 1
      }
    },
    write(path, content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), content)
    },
    commit(message, files = {}) {
      for (const [p, c] of Object.entries(files)) repo.write(p, c)
      git('add', '-A')
      git('commit', '-q', '--allow-empty', '-m', message)
      return git('rev-parse', 'HEAD').trim()
    },
    cleanup: () => rmSync(cleanupDir, { recursive: true, force: true }),
  }
  return repo
}

/** A fresh repository on `branch` (no commits unless `files` are given). */
export function makeRepo(opts: { branch?: string; files?: Record<string, string | Buffer>; dir?: string } = {}): Repo {
  const dir = opts.dir ?? tempDir()
  mkdirSync(dir, { recursive: true })
  const repo = openRepo(dir)
  repo.git('init', '-q', '-b', opts.branch ?? 'main')
  if (opts.files) repo.commit('initial', opts.files)
  return repo
}

/** Lines `line 1` … `line n`, newline-terminated. */
export function numbered(n: number, prefix = 'line'): string {
  return Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('')
}

export const gitEnv = ENV
