// Agent status as herdr derives it: an underlying state per terminal plus a per-pane `seen` flag
// (protocol doc 8.1–8.6), the global state_change_seq, and the events status changes publish.
import { ApiError } from './errors.ts'
import { PROFILE } from './mode.ts'
import type { AgentState, AgentStatus, Pane, SessionState } from './state.ts'

// Kinds `agent.start` accepts and that herdr ships integrations for (protocol doc 3.6).
export const AGENT_KINDS = [
  'pi',
  'claude',
  'codex',
  'gemini',
  'cursor',
  'devin',
  'agy',
  'cline',
  'omp',
  'mastracode',
  'opencode',
  'copilot',
  'kimi',
  'kiro',
  'droid',
  'amp',
  'grok',
  'hermes',
  'kilo',
  'qodercli',
  'maki',
  ...PROFILE.extraKinds,
]

// Agents whose session reference herdr stores as a file path rather than an id.
const PATH_SESSION_AGENTS = new Set(['pi', 'omp'])

export function effectiveStatus(p: Pane): AgentStatus {
  if (p.state === 'idle') return p.seen ? 'idle' : 'done'
  return p.state
}

const PRIORITY: AgentStatus[] = ['blocked', 'done', 'working', 'idle', 'unknown']

/** Tab/workspace rollup: the highest-priority pane status, `unknown` when empty. */
export function rollup(panes: Pane[]): AgentStatus {
  let best = PRIORITY.length - 1
  for (const p of panes) best = Math.min(best, PRIORITY.indexOf(effectiveStatus(p)))
  return PRIORITY[best]
}

/** What a per-pane `pane.agent_status_changed` entry compares: status plus presentation. */
export function statusSnapshot(p: Pane): Record<string, unknown> {
  const data: Record<string, unknown> = { pane_id: p.id, workspace_id: p.ws.id, agent_status: effectiveStatus(p) }
  if (p.agentLabel) data.agent = p.agentLabel
  if (p.title) data.title = p.title
  if (p.displayAgent) data.display_agent = p.displayAgent
  if (p.stateLabels && Object.keys(p.stateLabels).length > 0) data.state_labels = p.stateLabels
  return data
}

function applyState(s: SessionState, p: Pane, next: AgentState, nextLabel: string | undefined): void {
  const prev = p.state
  if (next !== 'idle') {
    p.seen = true
  } else if (prev === 'working' || prev === 'blocked' || (prev === 'unknown' && p.agentLabel !== undefined && p.agentLabel === nextLabel)) {
    // A completion is "seen" only if the user is looking at that pane's tab right now.
    p.seen = s.isVisible(p)
  }
  if (prev !== next) {
    s.stateSeq += 1
    p.stateChangeSeq = s.stateSeq
  }
  p.state = next
}

/** Publishes the hub events a status/label change causes, comparing with `before`. */
function publishChanges(s: SessionState, p: Pane, beforeLabel: string | undefined, beforeKey: string): void {
  if (p.agentLabel !== beforeLabel) {
    const data: Record<string, unknown> = { pane_id: p.id, workspace_id: p.ws.id }
    if (p.agentLabel) data.agent = p.agentLabel
    s.publish('pane_agent_detected', data)
  }
  const snap = statusSnapshot(p)
  if (JSON.stringify(snap) !== beforeKey) s.publish('pane_agent_status_changed', snap)
}

export interface AgentReport {
  source: string
  agent: string
  state: AgentState
  agentSessionId?: string
  agentSessionPath?: string
  message?: string
}

export function reportAgent(s: SessionState, p: Pane, r: AgentReport): void {
  if (r.agent.trim() === '') throw new ApiError('invalid_agent', 'agent label must not be empty')
  if (r.source.trim() === '') throw new ApiError('invalid_metadata_source', 'source must not be empty')
  const beforeLabel = p.agentLabel
  const beforeKey = JSON.stringify(statusSnapshot(p))
  const beforeName = p.agentName
  if (beforeLabel !== undefined && beforeLabel !== r.agent) {
    // A different agent replaced the occupant: identity that belonged to it goes.
    p.agentSession = undefined
    p.occupantEpoch += 1
    if (!p.launch || p.launch.kind !== r.agent) p.agentName = undefined
  }
  applyState(s, p, r.state, r.agent)
  p.agentLabel = r.agent
  p.agentSource = r.source
  recordSession(p, r.source, r.agent, r.agentSessionId, r.agentSessionPath)
  publishChanges(s, p, beforeLabel, beforeKey)
  if (p.agentName !== beforeName) s.publish('pane_updated', { pane: s.info.pane(p) })
}

export function reportAgentSession(s: SessionState, p: Pane, source: string, agent: string, id?: string, filePath?: string): void {
  const before = JSON.stringify(p.agentSession ?? null)
  recordSession(p, source, agent, id, filePath)
  if (JSON.stringify(p.agentSession ?? null) !== before) s.publish('pane_updated', { pane: s.info.pane(p) })
}

// Only an official `herdr:<agent>` source for a supported agent may store a session reference.
function recordSession(p: Pane, source: string, agent: string, id?: string, filePath?: string): void {
  if (source !== `herdr:${agent}` || !AGENT_KINDS.includes(agent)) return
  const usePath = PATH_SESSION_AGENTS.has(agent) ? (filePath ?? id) : (id ?? filePath)
  if (!usePath) return
  const kind = filePath !== undefined && usePath === filePath ? 'path' : 'id'
  p.agentSession = { source, agent, kind, value: usePath }
}

/** The occupant left (release, exit back to the shell): clear everything that belonged to it. */
export function releaseAgent(s: SessionState, p: Pane): void {
  if (p.agentLabel === undefined && p.agentName === undefined) return
  const beforeLabel = p.agentLabel
  const beforeKey = JSON.stringify(statusSnapshot(p))
  const finalStatus = effectiveStatus(p)
  const hadName = p.agentName !== undefined || p.interactiveReady || p.launch !== undefined
  applyState(s, p, 'unknown', undefined)
  p.agentLabel = undefined
  p.agentSource = undefined
  p.agentSession = undefined
  p.agentName = undefined
  p.launch = undefined
  p.interactiveReady = false
  p.blockCategory = undefined
  p.occupantEpoch += 1
  if (beforeLabel !== undefined) {
    s.publish('pane_agent_detected', { pane_id: p.id, workspace_id: p.ws.id, agent: beforeLabel, released: true, final_status: finalStatus })
  }
  const snap = statusSnapshot(p)
  if (JSON.stringify(snap) !== beforeKey) s.publish('pane_agent_status_changed', snap)
  if (hadName) s.publish('pane_updated', { pane: s.info.pane(p) })
}

/** Presentation-only update (sim convenience mirroring pane.report_metadata's effect). */
export function setPresentation(s: SessionState, p: Pane, fields: { title?: string; displayAgent?: string; stateLabels?: Record<string, string> }): void {
  const beforeKey = JSON.stringify(statusSnapshot(p))
  if (fields.title !== undefined) p.title = fields.title || undefined
  if (fields.displayAgent !== undefined) p.displayAgent = fields.displayAgent || undefined
  if (fields.stateLabels !== undefined) p.stateLabels = fields.stateLabels
  publishChanges(s, p, p.agentLabel, beforeKey)
}

/** When a pane's process exits with an agent inside, herdr reports the agent as released. */
export function onPaneExit(s: SessionState, p: Pane): void {
  if (p.agentLabel === undefined) return
  s.publish('pane_agent_detected', {
    pane_id: p.id,
    workspace_id: p.ws.id,
    agent: p.agentLabel,
    released: true,
    final_status: effectiveStatus(p),
  })
}
