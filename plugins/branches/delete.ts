/**
 * POST /branch-delete: deletes a local branch after re-checking every safety rule. The remote
 * branch is never touched. A refused rule is a 409 (a normal outcome, not a failure).
 */
import { stat } from 'node:fs/promises'
import { isAbsolute, normalize } from 'node:path'
import { HttpError } from '../../core/respond.ts'
import { runGit, oneLine, type GitOptions } from '../../lib/git/run.ts'
import { defaultBranch, mergeState, upstreamOf, worktreesHolding, branchSha, validBranchName } from './git.ts'

export interface DeleteRequest {
  repo_root: string
  branch: string
  force?: boolean
}

export interface DeleteResult {
  branch: string
  deleted: true
  forced: boolean
  merged: boolean
  merged_into: string
  sha: string
  upstream: string
  remote_deleted: false
}

export function isCanonicalAbsolute(p: string): boolean {
  return isAbsolute(p) && normalize(p) === p && (p === '/' || !p.endsWith('/'))
}

export async function deleteBranch(req: DeleteRequest, o: GitOptions): Promise<DeleteResult> {
  const { repo_root: repo, branch } = req
  if (branch.startsWith('-')) throw new HttpError(400, `bad branch: ${branch} (a branch name cannot start with '-')`)
  if (
    !isCanonicalAbsolute(repo) ||
    !(await stat(repo).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    throw new HttpError(400, `bad repo_root: ${repo} (want an absolute, canonical path of an existing directory)`)
  }
  const inRepo = await runGit(repo, ['rev-parse', '--git-dir'], o)
  if (inRepo.exitCode !== 0) throw new HttpError(400, `not a git repository: ${repo}`)
  if (!(await validBranchName(repo, branch, o))) throw new HttpError(400, `bad branch: ${branch} is not a valid branch name`)

  const sha = await branchSha(repo, branch, o)
  if (!sha) throw new HttpError(404, `no local branch named ${branch}`)

  // Rule 1: the default branch, or any branch when the default cannot be named.
  const trunk = await defaultBranch(repo, o)
  if (!trunk.branch) throw new HttpError(409, `cannot tell which branch is the default in ${repo}; refusing to delete ${branch}`)
  if (trunk.branch === branch) throw new HttpError(409, `${branch} is the default branch; it is never deleted`)
  // Rule 2: checked out anywhere, main checkout or linked worktree.
  const holders = await worktreesHolding(repo, branch, o)
  if (holders.length) throw new HttpError(409, `${branch} is checked out in ${holders.join(', ')}; it is never deleted`)
  // Rule 3: unmerged needs force.
  const m = await mergeState(repo, branch, trunk, o)
  if (!m.merged && !req.force) {
    throw new HttpError(409, `${branch} has ${m.unmerged_commits} commit(s) not merged into ${trunk.branch}; delete with force to drop them`)
  }
  const upstream = await upstreamOf(repo, branch, o)
  // Rule 4: a merged branch goes through git's own safe delete, which may still refuse.
  const forced = !m.merged
  const r = await runGit(repo, ['branch', forced ? '-D' : '-d', '--', branch], o)
  if (r.exitCode !== 0) throw new HttpError(409, `git refused to delete ${branch}: ${oneLine(r.stderr) || `exit ${r.exitCode}`}`)
  return { branch, deleted: true, forced, merged: m.merged, merged_into: m.merged_into, sha, upstream, remote_deleted: false }
}
