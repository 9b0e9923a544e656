/**
 * The slow-changing half of the /diff `git` object — remote names and the trunk candidate refs —
 * read with `git remote` + `git for-each-ref` only when something they depend on changed.
 *
 *   readRefs(cwd, dirs, opts) → Promise<RefsRead>   remote names output and refs, maybe cached
 *   aheadBehindCached(cwd, commonDir, headOid, refOid, opts) → Promise<{ahead, behind}>
 *
 * Why a cache at all: on a two-core machine every extra git process competes with `git status`
 * and `git diff HEAD`, and these two answers almost never change between polls. The working
 * tree state is never cached: `git status` and `git diff` run on every request.
 *
 * A cached answer is reused only while (1) it is younger than REFS_TTL_MS, and (2) a stat of
 * every file and directory git read it from (config files of every scope, packed-refs, the
 * refs/heads and refs/remotes/<remote> directories, reftable) shows the same inode, size, mtime
 * and ctime. Config and ref files are replaced by rename, so a change gets a new inode even
 * within one clock tick; for directories, an answer read within RACY_MS of a signature's mtime is
 * used once and not kept (git's own "racy" rule), so two writes in one tick cannot hide.
 * What the signature cannot see (a config `include` target, a system config outside
 * /etc/gitconfig) is bounded by the TTL.
 *
 * Ahead/behind depends only on the two commit ids (the commit graph under an id never changes),
 * so it is cached by the pair, and is 0/0 without running git when the ids are equal.
 */
import { readdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { runGit, type GitOptions } from './run.ts'
import { signature, RACY_MS, MAX_ENTRIES, cacheHits } from './file-signature.ts'
import { createCache } from '../cache.ts'

export const REFS_TTL_MS = 5_000
export const COUNTS_TTL_MS = 30_000

export const REFS_ARGS = [
  'for-each-ref',
  '--format=%(refname)%00%(symref)%00%(objectname)',
  'refs/remotes/*/HEAD',
  'refs/remotes/*/main',
  'refs/remotes/*/master',
  'refs/heads/main',
  'refs/heads/master',
]

export interface GitDirs {
  /** This worktree's git dir (per worktree for linked ones). */
  gitDir: string
  /** The repository's shared git dir (refs, config). */
  commonDir: string
}

export interface RefsRead {
  /** `git remote` stdout, '' when it failed. */
  remotes: string
  /** `for-each-ref` stdout in REFS_ARGS format, '' when it failed. */
  refs: string
}

interface RefsEntry {
  read: RefsRead
  at: number
  paths: string[]
  signature: string
}

const refsCache = createCache<string, RefsEntry>({ max: MAX_ENTRIES })
const countsCache = createCache<string, { ahead: number; behind: number; at: number }>({ max: MAX_ENTRIES })

/** `git remote` and `for-each-ref` output for the repository, from cache when still valid. */
export async function readRefs(cwd: string, dirs: GitDirs | null, o: GitOptions): Promise<RefsRead> {
  if (!dirs) return runRefs(cwd, o)
  const env = o.env ?? process.env
  const key = [dirs.commonDir, dirs.gitDir, ...CONFIG_ENV.map((k) => env[k] ?? '')].join('\0')
  const hit = refsCache.get(key)
  const now = Date.now()
  if (hit && now - hit.at < REFS_TTL_MS && (await signature(hit.paths)).sig === hit.signature) {
    cacheHits.refs++
    return hit.read
  }

  const startedAt = Date.now()
  const paths = await watchedPaths(dirs, env)
  const before = await signature(paths)
  const read = await runRefs(cwd, o)
  const afterPaths = withSymrefDirs(read.refs, dirs.commonDir, paths)
  const after = await signature(afterPaths)
  // Kept only if nothing changed while git read it and nothing was touched so recently that
  // mtime could not tell two writes apart.
  const unchanged = after.parts.slice(0, before.parts.length).join('|') === before.sig
  if (unchanged && Math.max(before.newestMs, after.newestMs) < startedAt - RACY_MS) {
    refsCache.delete(key)
    refsCache.set(key, { read, at: startedAt, paths: afterPaths, signature: after.sig })
  } else refsCache.delete(key)
  return read
}

/** Commits on HEAD that `refOid` lacks and the reverse; counted once per pair of ids. */
export async function aheadBehindCached(cwd: string, commonDir: string, head: string, ref: string, o: GitOptions): Promise<{ ahead: number; behind: number }> {
  // Names (HEAD, refs/...) move; only a pair of commit ids may be answered from memory.
  const ids = isOid(head) && isOid(ref)
  if (ids && head === ref) return { ahead: 0, behind: 0 }
  const key = `${commonDir}\0${head}\0${ref}`
  const hit = ids ? countsCache.get(key) : undefined
  if (hit && Date.now() - hit.at < COUNTS_TTL_MS) {
    cacheHits.counts++
    return { ahead: hit.ahead, behind: hit.behind }
  }
  const r = await runGit(cwd, ['rev-list', '--left-right', '--count', `${head || 'HEAD'}...${ref}`, '--'], o).catch(() => null)
  const m = r?.exitCode === 0 ? /^(\d+)\s+(\d+)/.exec(r.stdout) : null
  if (!m) return { ahead: 0, behind: 0 }
  const counts = { ahead: Number(m[1]), behind: Number(m[2]) }
  if (ids) {
    countsCache.delete(key)
    countsCache.set(key, { ...counts, at: Date.now() })
  }
  return counts
}

function isOid(s: string): boolean {
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(s)
}

/** Drops every cached answer (tests; a caller that knows the repository changed). */
export function clearRefsCache(): void {
  refsCache.clear()
  countsCache.clear()
}

async function runRefs(cwd: string, o: GitOptions): Promise<RefsRead> {
  const [remotes, refs] = await Promise.all([runGit(cwd, ['remote'], o).catch(() => null), runGit(cwd, REFS_ARGS, o).catch(() => null)])
  return { remotes: remotes?.exitCode === 0 ? remotes.stdout : '', refs: refs?.exitCode === 0 ? refs.stdout : '' }
}

/** Environment that changes which config files git reads. */
export const CONFIG_ENV = ['HOME', 'XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_COUNT', 'GIT_CONFIG_PARAMETERS']

/** The config files of every scope git reads for this repository. */
export function configPaths(dirs: GitDirs, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? ''
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, '.config') : '')
  return [
    join(dirs.commonDir, 'config'),
    join(dirs.commonDir, 'config.worktree'),
    join(dirs.gitDir, 'config.worktree'),
    ...(env.GIT_CONFIG_GLOBAL ? [env.GIT_CONFIG_GLOBAL] : [home ? join(home, '.gitconfig') : '', xdg ? join(xdg, 'git', 'config') : '']),
    env.GIT_CONFIG_SYSTEM || '/etc/gitconfig',
  ].filter(Boolean)
}

/** Every file and directory `git remote` and the trunk refs are read from. */
async function watchedPaths(dirs: GitDirs, env: NodeJS.ProcessEnv): Promise<string[]> {
  const { commonDir } = dirs
  const paths = [...configPaths(dirs, env), join(commonDir, 'packed-refs'), join(commonDir, 'reftable'), join(commonDir, 'refs', 'heads'), join(commonDir, 'refs', 'remotes')]
  const remotesDir = join(commonDir, 'refs', 'remotes')
  const children = await readdir(remotesDir, { withFileTypes: true }).catch(() => [])
  for (const d of children) if (d.isDirectory()) paths.push(join(remotesDir, d.name))
  return [...new Set(paths.filter(Boolean))]
}

/** The watched paths, then the directory of each remote HEAD's target (it may sit deeper). */
function withSymrefDirs(refs: string, commonDir: string, paths: string[]): string[] {
  const out = new Set(paths)
  for (const line of refs.split('\n')) {
    const target = line.split('\0')[1]
    if (target?.startsWith('refs/')) out.add(dirname(join(commonDir, target)))
  }
  return [...out]
}
