// Turns the id spellings herdr accepts (canonical and legacy) into live objects.
import { agentNotFound, paneNotFound, tabNotFound, workspaceNotFound } from './errors.ts'
import { parsePaneRef, parseTabRef, parseWorkspaceRef, type WorkspaceRef } from './ids.ts'
import type { Pane, SessionState, Tab, Workspace } from './state.ts'

function lookupWorkspace(s: SessionState, ref: WorkspaceRef): Workspace | undefined {
  if (ref.kind === 'position') return s.workspaces[ref.index - 1]
  return s.workspaces.find((w) => w.id === ref.id)
}

export function findWorkspace(s: SessionState, text: string): Workspace | undefined {
  const ref = parseWorkspaceRef(text)
  return ref ? lookupWorkspace(s, ref) : undefined
}

export function workspaceOrThrow(s: SessionState, text: string): Workspace {
  const ws = findWorkspace(s, text)
  if (!ws) throw workspaceNotFound(text)
  return ws
}

export function findTab(s: SessionState, text: string): Tab | undefined {
  const ref = parseTabRef(text)
  if (!ref) return undefined
  const ws = lookupWorkspace(s, ref.ws)
  if (!ws) return undefined
  return ref.kind === 'number' ? ws.tabs.find((t) => t.num === ref.n) : ws.tabs[ref.index - 1]
}

export function tabOrThrow(s: SessionState, text: string): Tab {
  const tab = findTab(s, text)
  if (!tab) throw tabNotFound(text)
  return tab
}

export function findPane(s: SessionState, text: string): Pane | undefined {
  const ref = parsePaneRef(text)
  if (!ref) return undefined
  if (ref.kind === 'raw') return s.allPanes().find((p) => p.num === ref.n)
  const ws = lookupWorkspace(s, ref.ws)
  return ws?.panes.find((p) => p.num === ref.n)
}

export function paneOrThrow(s: SessionState, text: string): Pane {
  const pane = findPane(s, text)
  if (!pane) throw paneNotFound(text)
  return pane
}

/**
 * Agent targets are a live agent name or the pane's exact canonical id; terminal ids, legacy
 * pane spellings and kind labels are rejected (protocol doc section 3).
 */
export function agentPaneOrThrow(s: SessionState, target: string): Pane {
  const panes = s.allPanes()
  const byName = panes.find((p) => p.agentName !== undefined && p.agentName === target)
  if (byName) return byName
  const byId = panes.find((p) => p.id === target)
  if (byId && (byId.agentLabel !== undefined || byId.agentName !== undefined)) return byId
  throw agentNotFound(target)
}

/** For `terminal session observe|control`: a terminal id, canonical pane id, agent name or label. */
export function terminalTarget(s: SessionState, target: string): Pane | undefined {
  const panes = s.allPanes()
  return panes.find((p) => p.terminalId === target) ?? panes.find((p) => p.id === target) ?? panes.find((p) => p.agentName === target) ?? panes.find((p) => p.agentLabel === target)
}
