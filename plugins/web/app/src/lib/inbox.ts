/** The inbox: agents in the bridge's order, grouped by attention, with relative times. */
import { jsonObject } from './json.ts'
import { plainText } from './triage.ts'
export interface Agent {
  agent: string
  agent_status: string
  attention_rank: number
  recency_rank: number
  pane_id: string
  state_change_seq?: number
  terminal_title_stripped?: string
  workspace_id?: string
  branch?: string
  cwd?: string
  last_activity_ts?: number
  session?: string
  subagents?: { total: number; running: number }
}

export interface Workspace {
  workspace_id: string
  label?: string
  session?: string
  /** Set when the space is a git checkout herdr tracks (a linked worktree or the main one). */
  worktree?: { repo_name?: string; repo_root?: string; checkout_path?: string; is_linked_worktree?: boolean; branch?: string }
}

export interface Pane {
  pane_id: string
  agent?: string
  workspace_id?: string
  tab_id?: string
  cwd?: string
  session?: string
}

export interface TabInfo {
  tab_id: string
  workspace_id: string
  label?: string
  number?: number
  pane_count?: number
}

export interface Snapshot {
  agents?: Agent[]
  workspaces?: Workspace[]
  panes?: Pane[]
  tabs?: TabInfo[]
}

/**
 * A pane the snapshot lists with no agent in it (a plain shell): only the terminal applies.
 * False while the snapshot does not list the pane yet, so nothing is hidden on a guess.
 */
export function isPlainPane(snap: Snapshot, pane: string): boolean {
  if (snap.agents?.some((a) => a.pane_id === pane)) return false
  return !!snap.panes?.some((p) => p.pane_id === pane && !p.agent)
}

/**
 * Orders by (attention_rank, recency_rank) exactly as the bridge ranked them; priority is never
 * re-derived here. Both ranks are always present on a current bridge.
 */
export function inboxOrder(agents: Agent[]): Agent[] {
  return [...agents].sort((a, b) => a.attention_rank - b.attention_rank || a.recency_rank - b.recency_rank)
}

export const GROUP_LABELS = ['Blocked', 'Done', 'Working', 'Idle', 'Unknown']

/** Consecutive runs of the ordered list sharing an attention rank (order is kept). */
export function inboxGroups(agents: Agent[]): Array<{ rank: number; label: string; agents: Agent[] }> {
  const groups: Array<{ rank: number; label: string; agents: Agent[] }> = []
  for (const a of inboxOrder(agents)) {
    const last = groups[groups.length - 1]
    if (last && last.rank === a.attention_rank) last.agents.push(a)
    else groups.push({ rank: a.attention_rank, label: GROUP_LABELS[a.attention_rank] ?? 'Unknown', agents: [a] })
  }
  return groups
}

/** "now", "5 min", "3 h", "2 d"; empty when the time is unknown (absent means unknown). */
export function relativeTime(ts: number | undefined | null, now: number): string {
  if (typeof ts !== 'number' || !(ts > 0)) return ''
  const s = Math.max(0, Math.round((now - ts) / 1000))
  if (s < 45) return 'now'
  const m = Math.round(s / 60)
  if (m < 60) return `${m} min`
  const h = Math.round(m / 60)
  if (h < 24) return `${h} h`
  return `${Math.round(h / 24)} d`
}

export function workspaceLabel(snap: Snapshot, agent: Agent): string {
  const ws = snap.workspaces?.find((w) => w.workspace_id === agent.workspace_id && (w.session ?? '') === (agent.session ?? ''))
  return ws?.label || agent.workspace_id || ''
}

export function agentTitle(a: Agent): string {
  return plainText(a.terminal_title_stripped ?? '') || a.agent || a.pane_id
}

/** `/snapshot` and the snapshot frame: `{result: {snapshot}}`, `{snapshot}` or the bare body. */
export function unwrapSnapshot(body: unknown): Snapshot {
  const o = jsonObject(body)
  // The bridge's own shape, trusted as such (each field is optional in Snapshot).
  return (jsonObject(o?.result)?.snapshot ?? o?.snapshot ?? body ?? {}) as Snapshot
}
