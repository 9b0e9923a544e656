/**
 * Where a directory's repository lives: the work tree's top level, this worktree's git dir and
 * the shared (common) git dir — `git rev-parse` answers, remembered per cwd.
 *
 *   readLayout(cwd, opts) → Promise<Layout>   {toplevel, dirs} ('' / null when git could not say)
 *
 * A remembered answer is reused for at most LAYOUT_TTL_MS and only while nothing git's
 * discovery looked at changed: the cwd (by real path), the `.git` entry of every directory from
 * the cwd up to the top level (a new nested repository, a removed or rewritten `.git`), the git
 * dir itself (a removed worktree) and every config file (core.worktree, safe.directory). Whether
 * the directory is a repository at all is still decided by `git status` on every request.
 */
import { realpath } from 'node:fs/promises'
import { dirname, join, sep } from 'node:path'
import { runGit, type GitOptions } from './run.ts'
import { configPaths, CONFIG_ENV, type GitDirs } from './refs-cache.ts'
import { signature, RACY_MS, MAX_ENTRIES, cacheHits } from './file-signature.ts'
import { createCache } from '../cache.ts'

export const LAYOUT_TTL_MS = 5_000
const REV_PARSE = ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-dir', '--git-common-dir']
const DISCOVERY_ENV = [...CONFIG_ENV, 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM']

export interface Layout {
  toplevel: string
  dirs: GitDirs | null
}

interface Entry {
  layout: Layout
  realCwd: string
  at: number
  paths: string[]
  sig: string
}

const cache = createCache<string, Entry>({ max: MAX_ENTRIES })

export async function readLayout(cwd: string, o: GitOptions): Promise<Layout> {
  const env = o.env ?? process.env
  const key = [cwd, ...DISCOVERY_ENV.map((k) => env[k] ?? '')].join('\0')
  const hit = cache.get(key)
  if (hit && Date.now() - hit.at < LAYOUT_TTL_MS) {
    const [real, now] = await Promise.all([realpath(cwd).catch(() => ''), signature(hit.paths)])
    if (real === hit.realCwd && now.sig === hit.sig) {
      cacheHits.layout++
      return hit.layout
    }
  }
  cache.delete(key)

  const startedAt = Date.now()
  const realBefore = await realpath(cwd).catch(() => '')
  const rev = await runGit(cwd, REV_PARSE, o).catch(() => null)
  const [toplevel = '', gitDir = '', commonDir = ''] = rev && rev.exitCode === 0 ? rev.stdout.split('\n') : []
  const layout: Layout = { toplevel, dirs: gitDir && commonDir ? { gitDir, commonDir } : null }
  const chain = realBefore && toplevel && layout.dirs ? dotGitChain(realBefore, toplevel) : null
  if (chain && layout.dirs) {
    const paths = [realBefore, ...chain, layout.dirs.gitDir, ...configPaths(layout.dirs, env)]
    const [realAfter, sig] = await Promise.all([realpath(cwd).catch(() => ''), signature(paths)])
    // Kept only when nothing was touched so recently that a same-tick change could hide.
    if (realAfter === realBefore && sig.newestMs < startedAt - RACY_MS) {
      cache.set(key, { layout, realCwd: realBefore, at: startedAt, paths, sig: sig.sig })
    }
  }
  return layout
}

/** `<dir>/.git` for every directory from `from` up to `top`; null when `top` is not above it. */
function dotGitChain(from: string, top: string): string[] | null {
  if (from !== top && !from.startsWith(top.endsWith(sep) ? top : top + sep)) return null
  const out: string[] = []
  for (let d = from; ; d = dirname(d)) {
    out.push(join(d, '.git'))
    if (d === top || dirname(d) === d) break
  }
  return out
}
