/** What every transcript reader returns and shares: a located session file, safe names. */
import { stat } from 'node:fs/promises'
import type { Summary } from '../card.ts'
import type { AgentInfo } from '../../core/herdr/index.ts'
import type { RawEntry, RosterRow } from './entry.ts'

export interface Located {
  /** The transcript session id (shown in hello.session_id). */
  sessionId: string
  path: string
}

/** A locate verdict: the file (it may not exist yet), or why there is none (a 404 reason). */
export type Location = { ok: true; located: Located } | { ok: false; reason: string }

export interface LocateInput {
  agent: AgentInfo
  home: string
  /** Other agents of the pane's herdr session, when the caller has them (ambiguity check). */
  others?: AgentInfo[]
}

/** The reader a kind contributes (agent-kind capability `transcript`). */
export type TranscriptReader = {
  locate(input: LocateInput): Promise<Location>
  normalize(line: string): RawEntry[]
  /** Entries a line yields without building them (indexing); must equal normalize(line).length. */
  count?(line: string): number
  /** The session's flat subagent roster, sorted by depth then id; [] when nothing was delegated. */
  roster?(parent: Located): Promise<RosterRow[]>
  /** The transcript of one roster row. */
  subagentPath?(parent: Located, agentId: string): string
  lastActivity(agent: AgentInfo, home: string): Promise<number | undefined>
  subagentCounts?(agent: AgentInfo, home: string): Promise<{ total: number; running: number } | undefined>
  /** Headline, detail and recent lines for the agent-state card. */
  summary?(agent: AgentInfo, home: string): Promise<Summary | undefined>
}

/** A name that can be a single path segment: no separators, no dot-only names. */
export const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/

export async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile()
  } catch {
    return false
  }
}

export const sessionValue = (a: AgentInfo): string | undefined => {
  const v = a.agent_session?.value
  return typeof v === 'string' && v ? v : undefined
}
