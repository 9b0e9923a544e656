/**
 * The single git read behind GET /diff, GET /diff?context=1 and GET /suggestions, so their
 * counts always agree.
 *
 *   readGit(cwd, { diff?: boolean, env? }) → Promise<{ git: GitContext, files: ChangedFile[] }>
 *   readGitContext(cwd, { env? })           → Promise<GitContext>   (same read, diff skipped)
 *
 * Not a git work tree (or the directory is gone) is an answer: `git.repo` false, every other
 * field zero-valued, `files` empty. `git status` failing for any other reason throws GitFailure
 * with the message `git status ...: <stderr>` (the /diff 502 body). Everything else in the
 * context (default branch, ahead/behind, remote) is best effort and never throws.
 *
 * Cost: `status` (+ `diff HEAD` when asked). `rev-parse`, `git remote`, `for-each-ref` and
 * `rev-list --count` run only when layout.ts / refs-cache.ts hold no valid answer; the operation
 * marker files and the untracked reads overlap the diff.
 */
import { realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { runGit, GitFailure, oneLine, isNotARepo, type GitOptions } from './run.ts'
import { parseStatusV2, type FileStatus } from './porcelain.ts'
import { splitPatch } from './patch.ts'
import { synthesizeUntracked } from './untracked.ts'
import { readRefs, aheadBehindCached } from './refs-cache.ts'
import { readLayout } from './layout.ts'

export interface GitContext {
  repo: boolean
  root: string
  branch: string
  default_branch: string
  default_ref: string
  remote: string
  upstream: string
  ahead: number
  behind: number
  dirty: boolean
  changed: number
  operation?: 'merge' | 'rebase' | 'cherry-pick' | 'revert'
}

export interface ChangedFile {
  path: string
  old_path?: string
  status: FileStatus
  additions: number
  deletions: number
  diff: string
}

export interface GitRead {
  git: GitContext
  files: ChangedFile[]
}

export interface ReadGitOptions {
  /** Also run `git diff HEAD` and fill `files` (the expensive half). */
  diff?: boolean
  env?: NodeJS.ProcessEnv
}

export function emptyContext(): GitContext {
  return { repo: false, root: '', branch: '', default_branch: '', default_ref: '', remote: '', upstream: '', ahead: 0, behind: 0, dirty: false, changed: 0 }
}

const STATUS = ['status', '--porcelain=v2', '-z', '--branch', '--no-ahead-behind', '--untracked-files=all', '--find-renames']
const DIFF_FLAGS = ['--no-color', '--no-ext-diff', '--no-textconv', '--no-relative', '--find-renames', '--src-prefix=a/', '--dst-prefix=b/']

export async function readGitContext(cwd: string, opts: { env?: NodeJS.ProcessEnv } = {}): Promise<GitContext> {
  return (await readGit(cwd, { env: opts.env })).git
}

export async function readGit(cwd: string, opts: ReadGitOptions = {}): Promise<GitRead> {
  const o: GitOptions = { env: opts.env }
  // Two processes per request: status and diff. The layout (rev-parse), remote names and trunk
  // refs come from layout.ts and refs-cache.ts, where git runs again only when the files it
  // read changed; the context chain and the untracked reads overlap `git diff HEAD`.
  const statusP = runGit(cwd, STATUS, o).catch((err: GitFailure) => err)
  const diffP = opts.diff ? runGit(cwd, ['diff', 'HEAD', ...DIFF_FLAGS], o).catch(() => null) : Promise.resolve(null)
  const revP = readLayout(cwd, o)
  const refsP = revP.then((rev) => readRefs(cwd, rev.dirs, o))

  const status = await statusP
  if (status instanceof Error || status.exitCode !== 0) {
    const stderr = status instanceof Error ? (status.result?.stderr ?? '') : status.stderr
    if (isNotARepo(stderr) || /must be run in a work tree/i.test(stderr) || !(await isDir(cwd))) return { git: emptyContext(), files: [] }
    throw status instanceof Error ? status : new GitFailure(`git status ...: ${oneLine(stderr) || `exit ${status.exitCode}`}`, status)
  }
  const st = parseStatusV2(status.stdout)

  const contextP = (async () => {
    const [rev, refs] = await Promise.all([revP, refsP])
    const remote = pickRemote(refs.remotes)
    const trunk = resolveDefaultBranch(parseRefs(refs.refs), remote)
    const [root, counts, operation] = await Promise.all([
      rev.toplevel ? realpath(rev.toplevel).catch(() => rev.toplevel) : Promise.resolve(''),
      !st.unborn && trunk.fullRef
        ? aheadBehindCached(cwd, rev.dirs?.commonDir ?? cwd, headOid(status.stdout), refOids(refs.refs).get(trunk.fullRef) ?? trunk.fullRef, o)
        : Promise.resolve({ ahead: 0, behind: 0 }),
      rev.dirs ? readOperation(rev.dirs.gitDir) : Promise.resolve(undefined),
    ])
    const git: GitContext = {
      repo: true,
      root,
      branch: st.branch,
      default_branch: trunk.branch,
      default_ref: trunk.ref,
      remote,
      upstream: st.upstream,
      ahead: counts.ahead,
      behind: counts.behind,
      dirty: st.entries.length > 0,
      changed: st.entries.length,
    }
    if (operation) git.operation = operation
    return git
  })()
  if (!opts.diff) return { git: await contextP, files: [] }

  const untrackedP = (async () => {
    const base = (await revP).toplevel || cwd
    const list = st.entries.filter((e) => e.status === 'untracked')
    const realBase = list.length ? await realpath(base).catch(() => base) : base
    const out = await mapLimited(list, 16, (e) => synthesizeUntracked(join(base, e.path), e.path, realBase))
    return new Map(list.map((e, i) => [e.path, out[i]]))
  })()
  const [git, patch, untracked] = await Promise.all([contextP, diffP.then((d) => diffText(cwd, st.unborn, d, o)), untrackedP])

  const sections = splitPatch(patch)
  const files = st.entries.map((e): ChangedFile => {
    const head = e.old_path !== undefined ? { path: e.path, old_path: e.old_path, status: e.status } : { path: e.path, status: e.status }
    if (e.status === 'untracked') {
      const syn = untracked.get(e.path)!
      return { ...head, additions: syn.additions, deletions: 0, diff: syn.diff }
    }
    const s = sections.get(e.path)
    return { ...head, additions: s?.additions ?? 0, deletions: s?.deletions ?? 0, diff: s?.diff ?? '' }
  })
  return { git, files }
}

/** `origin` if configured, else the first remote; '' when there is nowhere to push. */
export function pickRemote(out: string): string {
  const names = out
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean)
  return names.includes('origin') ? 'origin' : (names[0] ?? '')
}

export function parseRefs(out: string): Map<string, string> {
  const refs = new Map<string, string>()
  for (const line of out.split('\n')) {
    if (!line) continue
    const [name, symref = ''] = line.split('\0')
    refs.set(name, symref)
  }
  return refs
}

export interface Trunk {
  branch: string
  /** Short form for clients: `origin/main` or `main`. */
  ref: string
  fullRef: string
}

/**
 * The trunk a PR would target. First hit wins: the chosen remote's own HEAD; then `main`, then
 * `master`, each as the remote-tracking ref before the local branch. Otherwise nothing.
 */
export function resolveDefaultBranch(refs: Map<string, string>, remote: string): Trunk {
  if (remote) {
    const target = refs.get(`refs/remotes/${remote}/HEAD`)
    const prefix = `refs/remotes/${remote}/`
    if (target?.startsWith(prefix)) return { branch: target.slice(prefix.length), ref: `${remote}/${target.slice(prefix.length)}`, fullRef: target }
  }
  for (const b of ['main', 'master']) {
    if (remote && refs.has(`refs/remotes/${remote}/${b}`)) return { branch: b, ref: `${remote}/${b}`, fullRef: `refs/remotes/${remote}/${b}` }
    if (refs.has(`refs/heads/${b}`)) return { branch: b, ref: b, fullRef: `refs/heads/${b}` }
  }
  return { branch: '', ref: '', fullRef: '' }
}

/** HEAD's commit id from `git status --branch` output ('' when unborn or absent). */
export function headOid(statusOut: string): string {
  const m = /(?:^|\0)# branch\.oid ([0-9a-f]{7,64})\0/.exec(statusOut)
  return m ? m[1] : ''
}

/** Ref name → commit id from REFS_ARGS output; a symbolic ref also gives its target's id. */
export function refOids(out: string): Map<string, string> {
  const oids = new Map<string, string>()
  for (const line of out.split('\n')) {
    const [name, symref = '', oid = ''] = line.split('\0')
    if (!name || !/^[0-9a-f]{7,64}$/.test(oid)) continue
    oids.set(name, oid)
    if (symref) oids.set(symref, oid)
  }
  return oids
}

const MARKERS: Array<[string, NonNullable<GitContext['operation']>]> = [
  ['rebase-merge', 'rebase'],
  ['rebase-apply', 'rebase'],
  ['MERGE_HEAD', 'merge'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
]

/** git's own marker files in the worktree's git dir (per worktree for linked ones). */
export async function readOperation(gitDir: string): Promise<GitContext['operation']> {
  const present = await Promise.all(
    MARKERS.map(([f]) =>
      stat(join(gitDir, f)).then(
        () => true,
        () => false,
      ),
    ),
  )
  const hit = present.findIndex(Boolean)
  return hit >= 0 ? MARKERS[hit][1] : undefined
}

/** `git diff HEAD`, or against the empty tree on a branch with no commits yet. */
async function diffText(cwd: string, unborn: boolean, first: Awaited<ReturnType<typeof runGit>> | null, o: GitOptions): Promise<string> {
  if (!unborn) {
    if (first && first.exitCode === 0) return first.stdout
    throw new GitFailure(`git diff ...: ${oneLine(first?.stderr ?? '') || 'failed'}`, first ?? { stdout: '', stderr: '', exitCode: -1 })
  }
  const empty = await runGit(cwd, ['hash-object', '-t', 'tree', '--stdin'], { ...o, input: '' })
  const r = await runGit(cwd, ['diff', empty.stdout.trim(), ...DIFF_FLAGS], o)
  if (r.exitCode !== 0) throw new GitFailure(`git diff ...: ${oneLine(r.stderr)}`, r)
  return r.stdout
}

async function isDir(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  )
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i])
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}
