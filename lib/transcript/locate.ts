/** What every transcript reader shares: the located session, safe names, herdr's session value. */
import { stat } from 'node:fs/promises'
import type { AgentInfo } from '../../core/herdr/index.ts'
import type { TranscriptCapability } from '../../core/agent-kinds.ts'

export type { Located, Location, LocateInput, TranscriptHost, TranscriptSource, TranscriptCapability } from '../../core/agent-kinds.ts'

/** A transcript capability that can be streamed: it locates, and normalizes or opens. */
export type TranscriptReader = TranscriptCapability & Required<Pick<TranscriptCapability, 'locate'>>

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

/** The pane's working directories, foreground first: absolute paths only. */
export const cwdsOf = (a: AgentInfo): string[] => [...new Set([a.foreground_cwd, a.cwd].filter((c): c is string => typeof c === 'string' && c.startsWith('/')))]

/** Another agent of the same kind works in one of this agent's cwds (then never guess by cwd). */
export const sharesCwdWith = (agent: AgentInfo, others: AgentInfo[] | undefined): boolean => {
  const cwds = cwdsOf(agent)
  return !!others?.some((o) => o.pane_id !== agent.pane_id && o.agent === agent.agent && cwdsOf(o).some((c) => cwds.includes(c)))
}
