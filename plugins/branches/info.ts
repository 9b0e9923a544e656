/**
 * GET /branch-info: what deleting a space's branch would do. Every "nothing to offer" case and
 * every git failure is a 200 with deletable false and a sentence; only herdr failures are errors.
 */
import { realpath } from 'node:fs/promises'
import { GitFailure, type GitOptions } from '../../lib/git/run.ts'
import { defaultBranch, mergeState, upstreamOf, worktreesHolding, branchSha } from './git.ts'

export interface BranchInfo {
  workspace_id: string
  repo_root: string
  checkout_path: string
  branch: string
  default_branch: string
  is_default: boolean
  checked_out_elsewhere: string[]
  merged: boolean
  merged_into: string
  unmerged_commits: number
  upstream: string
  deletable: boolean
  blocked_reason: string
}

export interface WorktreeListResult {
  source?: { repo_root?: string }
  worktrees?: Array<{ path: string; branch?: string; is_detached?: boolean; is_linked_worktree?: boolean; open_workspace_id?: string }>
}

export const REASONS = {
  notWorktree: 'this space is not a git worktree',
  detached: 'this worktree is on a detached HEAD, not a branch',
  mainCheckout: "this space is the repository's main checkout",
  noRepoRoot: 'herdr did not report a repo root for this space',
  noDefault: 'cannot tell which branch is the default in this repository, so no branch in it is deletable',
  isDefault: (b: string) => `${b} is the repository's default branch and is never deleted`,
  elsewhere: (b: string, paths: string[]) => `${b} is checked out in another worktree (${paths.join(', ')})`,
  noBranch: (b: string) => `there is no local branch named ${b}`,
}

export function nothingToOffer(workspace_id: string, reason: string, repo_root = '', checkout_path = ''): BranchInfo {
  return {
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
    blocked_reason: reason,
  }
}

/** `list` is herdr's worktree.list answer (null for not_git_worktree); `bareId` the workspace as herdr knows it. */
export async function branchInfo(workspaceId: string, bareId: string, list: WorktreeListResult | null, o: GitOptions): Promise<BranchInfo> {
  const entry = list?.worktrees?.find((w) => w.open_workspace_id === bareId)
  if (!list || !entry) return nothingToOffer(workspaceId, REASONS.notWorktree)
  const repoRoot = list.source?.repo_root ?? ''
  const checkout = entry.path ?? ''
  if (!repoRoot) return nothingToOffer(workspaceId, REASONS.noRepoRoot, '', checkout)
  if (!entry.is_linked_worktree) return nothingToOffer(workspaceId, REASONS.mainCheckout, repoRoot, checkout)
  if (entry.is_detached || !entry.branch) return nothingToOffer(workspaceId, REASONS.detached, repoRoot, checkout)
  const branch = entry.branch
  const out: BranchInfo = { ...nothingToOffer(workspaceId, '', repoRoot, checkout), branch }
  try {
    const [trunk, holders, upstream, sha, own] = await Promise.all([
      defaultBranch(repoRoot, o),
      worktreesHolding(repoRoot, branch, o),
      upstreamOf(repoRoot, branch, o),
      branchSha(repoRoot, branch, o),
      realpath(checkout).catch(() => checkout),
    ])
    out.default_branch = trunk.branch
    out.is_default = !!trunk.branch && trunk.branch === branch
    out.checked_out_elsewhere = holders.filter((p) => p !== own)
    out.upstream = upstream
    if (!sha) return { ...out, blocked_reason: REASONS.noBranch(branch) }
    if (trunk.branch && !out.is_default) Object.assign(out, await mergeState(repoRoot, branch, trunk, o))
    out.blocked_reason = !trunk.branch
      ? REASONS.noDefault
      : out.is_default
        ? REASONS.isDefault(branch)
        : out.checked_out_elsewhere.length
          ? REASONS.elsewhere(branch, out.checked_out_elsewhere)
          : ''
    out.deletable = out.blocked_reason === ''
    return out
  } catch (err) {
    if (err instanceof GitFailure) return { ...out, deletable: false, blocked_reason: err.message }
    throw err
  }
}
