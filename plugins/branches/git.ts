/**
 * The git facts behind branch deletion, read fresh on every call (never trusted from a preflight).
 * All calls go through lib/git/run.ts; the branch is always passed as a full ref or after `--`.
 */
import { realpath } from 'node:fs/promises'
import { runGit, gitOk, GitFailure, oneLine, type GitOptions } from '../../lib/git/run.ts'

export interface DefaultBranch {
  /** '' when it cannot be determined (then nothing in the repository is deletable). */
  branch: string
  /** Remote whose remote-tracking copy also proves a merge: the one whose HEAD named the trunk, else origin, else the first. */
  remote: string
}

export interface MergeState {
  merged: boolean
  merged_into: string
  unmerged_commits: number
}

const LOCAL_TRUNKS = ['main', 'master', 'trunk', 'develop']

/**
 * Resolution order of the delete rules: the remote's own HEAD (origin first, then the other
 * remotes), then the first existing local branch among main, master, trunk, develop.
 */
export async function defaultBranch(repo: string, o: GitOptions): Promise<DefaultBranch> {
  const [remotesOut, refsOut] = await Promise.all([
    gitOk(repo, ['remote'], o),
    gitOk(repo, ['for-each-ref', '--format=%(refname)%00%(symref)', 'refs/remotes/*/HEAD', ...LOCAL_TRUNKS.map((b) => `refs/heads/${b}`)], o),
  ])
  const names = remotesOut
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean)
  const remotes = names.includes('origin') ? ['origin', ...names.filter((n) => n !== 'origin')] : names
  const refs = new Map(
    refsOut
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\0') as [string, string]),
  )
  for (const r of remotes) {
    const target = refs.get(`refs/remotes/${r}/HEAD`)
    if (target?.startsWith(`refs/remotes/${r}/`)) return { branch: target.slice(`refs/remotes/${r}/`.length), remote: r }
  }
  const local = LOCAL_TRUNKS.find((b) => refs.has(`refs/heads/${b}`)) ?? ''
  return { branch: local, remote: remotes[0] ?? '' }
}

/** Worktrees (main or linked) that have `branch` checked out, as real paths. */
export async function worktreesHolding(repo: string, branch: string, o: GitOptions): Promise<string[]> {
  const out = await gitOk(repo, ['worktree', 'list', '--porcelain', '-z'], o)
  const holders: string[] = []
  let path = ''
  for (const field of out.split('\0')) {
    if (field.startsWith('worktree ')) path = field.slice(9)
    else if (field === `branch refs/heads/${branch}`) holders.push(await realpath(path).catch(() => path))
  }
  return holders
}

/** Ancestor of the local default, else of `<remote>/<default>`; otherwise how many commits would be lost. */
export async function mergeState(repo: string, branch: string, trunk: DefaultBranch, o: GitOptions): Promise<MergeState> {
  const candidates: Array<[string, string]> = [[`refs/heads/${trunk.branch}`, trunk.branch]]
  if (trunk.remote) candidates.push([`refs/remotes/${trunk.remote}/${trunk.branch}`, `${trunk.remote}/${trunk.branch}`])
  const existing: Array<[string, string]> = []
  for (const c of candidates) if (await refExists(repo, c[0], o)) existing.push(c)
  for (const [ref, name] of existing) {
    const r = await runGit(repo, ['merge-base', '--is-ancestor', `refs/heads/${branch}`, ref], o)
    if (r.exitCode === 0) return { merged: true, merged_into: name, unmerged_commits: 0 }
    if (r.exitCode !== 1) throw new GitFailure(`git merge-base ...: ${oneLine(r.stderr)}`, r)
  }
  if (!existing.length) return { merged: false, merged_into: '', unmerged_commits: 0 }
  const count = await gitOk(repo, ['rev-list', '--count', `${existing[0][0]}..refs/heads/${branch}`, '--'], o)
  return { merged: false, merged_into: '', unmerged_commits: Number(count.trim()) || 0 }
}

export async function refExists(repo: string, ref: string, o: GitOptions): Promise<boolean> {
  const r = await runGit(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], o)
  return r.exitCode === 0
}

/** The commit a local branch points at, or '' when there is no such branch. */
export async function branchSha(repo: string, branch: string, o: GitOptions): Promise<string> {
  const r = await runGit(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], o)
  return r.exitCode === 0 ? r.stdout.trim() : ''
}

export async function upstreamOf(repo: string, branch: string, o: GitOptions): Promise<string> {
  return (await gitOk(repo, ['for-each-ref', '--format=%(upstream:short)', `refs/heads/${branch}`], o)).trim()
}

/** Syntax check of a branch name as a ref (no `@{-1}` shorthands, no option shapes). */
export async function validBranchName(repo: string, branch: string, o: GitOptions): Promise<boolean> {
  if (!branch || branch.startsWith('-')) return false
  const r = await runGit(repo, ['check-ref-format', `refs/heads/${branch}`], o)
  return r.exitCode === 0
}
