// workspace.* and tab.*
import { ApiError } from '../errors.ts'
import { workspaceLabel } from '../info.ts'
import { tabOrThrow, workspaceOrThrow } from '../resolve.ts'
import { PROFILE } from '../mode.ts'
import { provenanceSync } from '../worktree.ts'
import { checkCwd, checkEnv } from './common.ts'
import { ok, type MethodTable } from './types.ts'

export const workspaceMethods: MethodTable = {
  'workspace.list': (_p, { s }) => ({ type: 'workspace_list', workspaces: s.workspaces.map((w) => s.info.workspace(w)) }),

  'workspace.get': (p, { s }) => ({ type: 'workspace_info', workspace: s.info.workspace(workspaceOrThrow(s, p.workspace_id)) }),

  'workspace.create': (p, { s }) => {
    const cwd = checkCwd(p.cwd, 'workspace_create_failed')
    const env = checkEnv(p.env)
    const worktree = provenanceSync(cwd ?? s.config.defaultCwd)
    const { ws, tab, pane } = s.createWorkspace({ cwd, env, label: p.label ?? undefined, focus: p.focus === true, worktree })
    return { type: 'workspace_created', workspace: s.info.workspace(ws), tab: s.info.tab(tab), root_pane: s.info.pane(pane) }
  },

  'workspace.focus': (p, { s }) => {
    const ws = workspaceOrThrow(s, p.workspace_id)
    s.focusWorkspace(ws)
    return { type: 'workspace_info', workspace: s.info.workspace(ws) }
  },

  'workspace.rename': (p, { s }) => {
    const ws = workspaceOrThrow(s, p.workspace_id)
    ws.label = String(p.label).trim() || undefined
    s.publish('workspace_renamed', { workspace_id: ws.id, label: workspaceLabel(ws) })
    return { type: 'workspace_info', workspace: s.info.workspace(ws) }
  },

  'workspace.close': (p, { s }) => {
    const ws = workspaceOrThrow(s, p.workspace_id)
    // herdr 0.9 (#2874): `close_group: true` on a primary checkout also closes the workspaces of
    // its linked worktrees; without it they stay open. herdr 0.8 ignores the field.
    const group =
      PROFILE.closeGroup && p.close_group === true && ws.worktree && !ws.worktree.is_linked_worktree
        ? s.workspaces.filter((w) => w !== ws && w.worktree?.is_linked_worktree && w.worktree.repo_key === ws.worktree!.repo_key)
        : []
    s.closeWorkspace(ws)
    for (const w of group) s.closeWorkspace(w)
    return ok()
  },

  'tab.list': (p, { s }) => {
    const tabs = p.workspace_id ? workspaceOrThrow(s, p.workspace_id).tabs : s.allTabs()
    return { type: 'tab_list', tabs: tabs.map((t) => s.info.tab(t)) }
  },

  'tab.get': (p, { s }) => ({ type: 'tab_info', tab: s.info.tab(tabOrThrow(s, p.tab_id)) }),

  'tab.create': (p, { s }) => {
    let ws
    if (p.workspace_id) ws = workspaceOrThrow(s, p.workspace_id)
    else ws = s.activeWs
    if (!ws) throw new ApiError('workspace_not_found', 'no active workspace')
    const cwd = checkCwd(p.cwd, 'tab_create_failed')
    const env = checkEnv(p.env)
    const { tab, pane } = s.createTab(ws, { cwd, env, label: p.label ?? undefined, focus: p.focus === true })
    return { type: 'tab_created', tab: s.info.tab(tab), root_pane: s.info.pane(pane) }
  },

  'tab.focus': (p, { s }) => {
    const tab = tabOrThrow(s, p.tab_id)
    s.focusTab(tab)
    return { type: 'tab_info', tab: s.info.tab(tab) }
  },

  'tab.rename': (p, { s }) => {
    const tab = tabOrThrow(s, p.tab_id)
    tab.label = String(p.label).trim() || undefined
    const info = s.info.tab(tab)
    s.publish('tab_renamed', { tab_id: tab.id, workspace_id: tab.ws.id, label: info.label })
    return { type: 'tab_info', tab: info }
  },

  'tab.close': (p, { s }) => {
    s.closeTab(tabOrThrow(s, p.tab_id))
    return ok()
  },
}
