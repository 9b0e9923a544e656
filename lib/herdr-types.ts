/**
 * The shapes of herdr's answers the bridge reads (pure types: the kit, the card and the
 * transcript readers use them without importing the herdr client in core/herdr).
 */

/** A pane reference resolved to its session and herdr's own id. */
export interface PaneRef {
  session: string
  /** herdr's bare id. */
  id: string
  /** The id as clients see it. */
  qualified: string
}

export interface PaneInfo {
  pane_id: string
  workspace_id: string
  tab_id: string
  terminal_id: string
  agent?: string
  agent_status: string
  cwd?: string
  foreground_cwd?: string
  [k: string]: unknown
}

/** `agent.get`'s answer: the pane's fields and the agent's own. */
export interface AgentInfo extends PaneInfo {
  name?: string
  terminal_title_stripped?: string
  agent_session?: { source: string; agent: string; kind: string; value: string }
  state_change_seq?: number
}
