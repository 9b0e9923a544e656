// worktree.* — real `git worktree` in a real repository; replies arrive after git finishes.
import os from 'node:os'
import path from 'node:path'
import { ApiError } from '../errors.ts'
import { workspaceOrThrow } from '../resolve.ts'
import type { SessionState, Workspace } from '../state.ts'
import { autoBranchName, branchExists, git, isDirty, listWorktrees, provenance, type GitProvenance, type WorktreeEntry } from '../worktree.ts'
import type { MethodTable } from './types.ts'

let autoBranchCounter = 0

function invalid(detail: string): ApiError {
  return new ApiError('invalid_request', `invalid request: ${detail}`)
}

/** `workspace_id` or `cwd` (at most one); neither means the active workspace. */
async function sourceOf(s: SessionState, p: { workspace_id?: string | null; cwd?: string | null }): Promise<{ dir: string; prov: GitProvenance; ws?: Workspace }> {
  if (p.workspace_id && p.cwd) throw invalid('workspace_id and cwd are mutually exclusive')
  let dir: string
  let ws: Workspace | undefined
  if (p.cwd) {
    if (!path.isAbsolute(p.cwd)) throw invalid(`cwd must be an absolute path: ${p.cwd}`)
    dir = p.cwd
  } else {
    ws = p.workspace_id ? workspaceOrThrow(s, p.workspace_id) : s.activeWs
    if (!ws) throw new ApiError('workspace_not_found', 'no active workspace')
    dir = ws.worktree?.checkout_path ?? ws.cwd
  }
  const prov = await provenance(dir)
  if (!prov) throw new ApiError('not_git_worktree', `${dir} is not inside a git worktree`)
  return { dir, prov, ws }
}

function openWorkspaceFor(s: SessionState, checkout: string): Workspace | undefined {
  return s.workspaces.find((w) => (w.worktree?.checkout_path ?? w.cwd) === checkout)
}

function worktreeInfo(s: SessionState, e: WorktreeEntry): Record<string, unknown> {
  const out: Record<string, unknown> = {
    path: e.path,
    is_bare: e.is_bare,
    is_detached: e.is_detached,
    is_prunable: e.is_prunable,
    is_linked_worktree: e.is_linked_worktree,
    label: e.branch ?? path.basename(e.path),
  }
  if (e.branch) out.branch = e.branch
  const open = openWorkspaceFor(s, e.path)
  if (open) out.open_workspace_id = open.id
  return out
}

function linkedProvenance(prov: GitProvenance, checkout: string): GitProvenance {
  return { ...prov, checkout_path: checkout, is_linked_worktree: true }
}

function openWorktreeWorkspace(s: SessionState, prov: GitProvenance, entry: WorktreeEntry, label: string | undefined, focus: boolean) {
  return s.createWorkspace({ cwd: entry.path, label: label ?? entry.branch ?? path.basename(entry.path), focus, worktree: linkedProvenance(prov, entry.path) })
}

export const worktreeMethods: MethodTable = {
  'worktree.list': async (p, { s }) => {
    const { prov, ws } = await sourceOf(s, p)
    let entries: WorktreeEntry[]
    try {
      entries = await listWorktrees(prov.repo_root)
    } catch (err) {
      throw new ApiError('worktree_list_failed', (err as Error).message)
    }
    const source: Record<string, unknown> = {
      repo_key: prov.repo_key,
      repo_name: prov.repo_name,
      repo_root: prov.repo_root,
      source_checkout_path: prov.checkout_path,
    }
    const sourceWs = ws ?? openWorkspaceFor(s, prov.checkout_path)
    if (sourceWs) source.source_workspace_id = sourceWs.id
    return { type: 'worktree_list', source, worktrees: entries.map((e) => worktreeInfo(s, e)) }
  },

  'worktree.create': async (p, { s }) => {
    const { prov } = await sourceOf(s, p)
    if (prov.is_linked_worktree) throw new ApiError('linked_worktree_source', `${prov.checkout_path} is a linked worktree; create from the main checkout`)
    if (p.branch === '') throw invalid('branch must not be empty')
    if (p.path && !path.isAbsolute(p.path)) throw invalid(`path must be an absolute path: ${p.path}`)
    const branch: string = p.branch ?? autoBranchName(++autoBranchCounter)
    const home = process.env.HOME ?? os.homedir()
    const target: string = p.path ?? path.join(home, '.herdr', 'worktrees', prov.repo_name, branch.replace(/\//g, '-'))
    try {
      if (await branchExists(prov.repo_root, branch)) await git(prov.repo_root, ['worktree', 'add', target, branch])
      else await git(prov.repo_root, ['worktree', 'add', '-b', branch, target, p.base ?? 'HEAD'])
    } catch (err) {
      throw new ApiError('worktree_create_failed', (err as Error).message.trim())
    }
    const entry = (await listWorktrees(prov.repo_root)).find((e) => e.path === target || e.branch === branch)
    if (!entry) throw new ApiError('worktree_create_failed', `git did not report the new worktree at ${target}`)
    const { ws, tab, pane } = openWorktreeWorkspace(s, prov, entry, p.label ?? undefined, p.focus === true)
    const worktree = worktreeInfo(s, entry)
    s.publish('worktree_created', { workspace: s.info.workspace(ws), worktree })
    return { type: 'worktree_created', workspace: s.info.workspace(ws), tab: s.info.tab(tab), root_pane: s.info.pane(pane), worktree }
  },

  'worktree.open': async (p, { s }) => {
    if ((p.path ? 1 : 0) + (p.branch ? 1 : 0) !== 1) throw invalid('exactly one of path and branch is required')
    if (p.path && !path.isAbsolute(p.path)) throw invalid(`path must be an absolute path: ${p.path}`)
    const { prov } = await sourceOf(s, p)
    const entries = await listWorktrees(prov.repo_root)
    const matches = p.path ? entries.filter((e) => e.path === path.resolve(p.path)) : entries.filter((e) => e.branch === p.branch)
    if (matches.length > 1) throw new ApiError('ambiguous_worktree_branch', `branch ${p.branch} is checked out in several worktrees`)
    const entry = matches[0]
    if (!entry) throw new ApiError('worktree_not_found', `worktree ${p.path ?? p.branch} not found`)
    const existing = openWorkspaceFor(s, entry.path)
    if (existing) {
      const worktree = worktreeInfo(s, entry)
      s.publish('worktree_opened', { workspace: s.info.workspace(existing), worktree, already_open: true })
      if (p.focus) s.focusWorkspace(existing)
      return {
        type: 'worktree_opened',
        workspace: s.info.workspace(existing),
        tab: s.info.tab(existing.activeTab),
        root_pane: s.info.pane(existing.activeTab.panes[0]),
        worktree,
        already_open: true,
      }
    }
    const { ws, tab, pane } = openWorktreeWorkspace(s, prov, entry, p.label ?? undefined, p.focus === true)
    const worktree = worktreeInfo(s, entry)
    s.publish('worktree_opened', { workspace: s.info.workspace(ws), worktree, already_open: false })
    return { type: 'worktree_opened', workspace: s.info.workspace(ws), tab: s.info.tab(tab), root_pane: s.info.pane(pane), worktree, already_open: false }
  },

  'worktree.remove': async (p, { s }) => {
    const ws = workspaceOrThrow(s, p.workspace_id)
    const prov = ws.worktree
    if (!prov || !prov.is_linked_worktree) throw new ApiError('not_linked_worktree', `workspace ${ws.id} is not a linked worktree`)
    const forced = p.force === true
    if (!forced && (await isDirty(prov.checkout_path).catch(() => false))) {
      throw new ApiError('dirty_worktree_requires_force', `worktree ${prov.checkout_path} has uncommitted changes; pass force to remove it`)
    }
    const entry = (await listWorktrees(prov.repo_root)).find((e) => e.path === prov.checkout_path)
    const wsInfo = s.info.workspace(ws)
    if (s.workspaces.includes(ws)) s.closeWorkspace(ws)
    try {
      await git(prov.repo_root, ['worktree', 'remove', ...(forced ? ['--force'] : []), prov.checkout_path])
    } catch (err) {
      throw new ApiError('worktree_remove_failed', (err as Error).message.trim())
    }
    const worktree = entry
      ? worktreeInfo(s, entry)
      : { path: prov.checkout_path, is_bare: false, is_detached: false, is_prunable: false, is_linked_worktree: true, label: path.basename(prov.checkout_path) }
    s.publish('worktree_removed', { workspace_id: ws.id, workspace: wsInfo, worktree, forced })
    return { type: 'worktree_removed', workspace_id: ws.id, path: prov.checkout_path, forced }
  },
}
