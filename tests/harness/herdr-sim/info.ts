// Builds the schema's info objects (WorkspaceInfo, TabInfo, PaneInfo, AgentInfo,
// PaneLayoutSnapshot). Optional fields are omitted, never null (protocol doc 1.2).
import path from 'node:path'
import { effectiveStatus, rollup } from './agents.ts'
import { place } from './layout.ts'
import { stripSpinner, type InfoBuilders, type Pane, type SessionState, type Tab, type Workspace } from './state.ts'

export function installInfo(s: SessionState): void {
  const info: InfoBuilders = {
    workspace: (ws) => workspaceInfo(s, ws),
    tab: (tab) => tabInfo(s, tab),
    pane: (pane) => paneInfo(s, pane),
    agent: (pane) => agentInfo(s, pane),
    layout: (tab) => layoutSnapshot(s, tab),
  }
  s.info = info
}

export function workspaceLabel(ws: Workspace): string {
  return ws.label ?? ws.worktree?.repo_name ?? (path.basename(ws.cwd) || ws.cwd)
}

function workspaceInfo(s: SessionState, ws: Workspace): Record<string, unknown> {
  const out: Record<string, unknown> = {
    workspace_id: ws.id,
    number: s.workspaces.indexOf(ws) + 1 || s.workspaces.length + 1,
    label: workspaceLabel(ws),
    focused: s.activeWs === ws,
    pane_count: ws.panes.length,
    tab_count: ws.tabs.length,
    active_tab_id: ws.activeTab.id,
    agent_status: rollup(ws.panes),
  }
  if (ws.worktree) out.worktree = { ...ws.worktree }
  return out
}

function tabInfo(s: SessionState, tab: Tab): Record<string, unknown> {
  const ws = tab.ws
  return {
    tab_id: tab.id,
    workspace_id: ws.id,
    number: tab.num,
    // Unnamed tabs are labelled with their 1-based position, which moves as tabs close.
    label: tab.label ?? String(ws.tabs.indexOf(tab) + 1 || ws.tabs.length + 1),
    focused: s.activeWs === ws && ws.activeTab === tab,
    pane_count: tab.panes.length,
    agent_status: rollup(tab.panes),
  }
}

function paneInfo(s: SessionState, p: Pane): Record<string, unknown> {
  const out: Record<string, unknown> = {
    pane_id: p.id,
    terminal_id: p.terminalId,
    workspace_id: p.ws.id,
    tab_id: p.tab.id,
    focused: s.isFocused(p),
    cwd: p.cwd,
  }
  const fg = p.removed ? undefined : p.terminal.foregroundCwd()
  if (fg) out.foreground_cwd = fg
  if (p.label) out.label = p.label
  if (p.agentLabel) out.agent = p.agentLabel
  if (p.title) out.title = p.title
  if (p.terminalTitle) {
    out.terminal_title = p.terminalTitle
    const stripped = stripSpinner(p.terminalTitle)
    if (stripped) out.terminal_title_stripped = stripped
  }
  if (p.displayAgent) out.display_agent = p.displayAgent
  out.agent_status = effectiveStatus(p)
  if (p.stateLabels && Object.keys(p.stateLabels).length > 0) out.state_labels = p.stateLabels
  if (p.agentSession) out.agent_session = { ...p.agentSession }
  const scroll = scrollInfo(p)
  if (scroll) out.scroll = scroll
  out.revision = p.revision
  return out
}

export function scrollInfo(p: Pane): Record<string, number> | undefined {
  if (p.removed || p.terminal.exited) return undefined
  const buf = p.terminal.term.buffer.active
  return { offset_from_bottom: 0, max_offset_from_bottom: buf.type === 'normal' ? buf.baseY : 0, viewport_rows: p.terminal.rows }
}

function agentInfo(s: SessionState, p: Pane): Record<string, unknown> {
  const out: Record<string, unknown> = { terminal_id: p.terminalId }
  if (p.agentName) out.name = p.agentName
  if (p.agentLabel) out.agent = p.agentLabel
  if (p.title) out.title = p.title
  if (p.terminalTitle) {
    out.terminal_title = p.terminalTitle
    const stripped = stripSpinner(p.terminalTitle)
    if (stripped) out.terminal_title_stripped = stripped
  }
  if (p.displayAgent) out.display_agent = p.displayAgent
  out.agent_status = effectiveStatus(p)
  out.workspace_id = p.ws.id
  out.tab_id = p.tab.id
  out.pane_id = p.id
  out.focused = s.isFocused(p)
  if (p.stateLabels && Object.keys(p.stateLabels).length > 0) out.state_labels = p.stateLabels
  if (p.agentSession) out.agent_session = { ...p.agentSession }
  if (p.launch) out.launch_pending = true
  if (p.interactiveReady) out.interactive_ready = true
  out.state_change_seq = p.stateChangeSeq
  out.cwd = p.cwd
  const fg = p.removed ? undefined : p.terminal.foregroundCwd()
  if (fg) out.foreground_cwd = fg
  out.revision = p.revision
  return out
}

function layoutSnapshot(s: SessionState, tab: Tab): Record<string, unknown> {
  const placed = place(tab.root, s.area)
  return {
    workspace_id: tab.ws.id,
    tab_id: tab.id,
    zoomed: false,
    area: s.area,
    focused_pane_id: tab.focused.id,
    panes: placed.panes.map(({ pane, rect }) => ({ pane_id: pane.id, focused: tab.focused === pane, rect })),
    splits: placed.splits.map((sp) => ({ id: sp.id, direction: sp.direction, ratio: sp.ratio, rect: sp.rect })),
  }
}

export function hasAgent(p: Pane): boolean {
  return p.agentLabel !== undefined || p.agentName !== undefined
}
