/** What every transcript reader shares: the located session, safe names, herdr's session value. */
import { open, stat } from 'node:fs/promises'
import type { AgentInfo } from '../herdr-types.ts'
import type { Located, Location, TranscriptCapability } from '../agent-kinds.ts'

export type { Located, Location, LocateInput, TranscriptHost, TranscriptSource, TranscriptCapability } from '../agent-kinds.ts'

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

/**
 * The first `max` non-empty lines within the first `bytes` of a file; [] when it cannot be read.
 * Session files name their id and cwd in a header record, read without reading the whole file;
 * the last line returned may be cut at `bytes` (then it will not parse, which callers treat as absent).
 */
export async function readHeadLines(path: string, bytes: number, max = 1): Promise<string[]> {
  const fh = await open(path, 'r').catch(() => null)
  if (!fh) return []
  try {
    const buf = Buffer.allocUnsafe(bytes)
    const { bytesRead } = await fh.read(buf, 0, bytes, 0)
    return buf
      .toString('utf8', 0, bytesRead)
      .split('\n')
      .filter((l) => l.trim())
      .slice(0, max)
  } catch {
    return []
  } finally {
    await fh.close()
  }
}

/**
 * The newest (by mtime) of `paths` that `identify` accepts, naming its session id; null when none.
 * `identify` reads the file only for a candidate newer than the best so far.
 */
export async function newestSession(paths: Iterable<string>, identify: (path: string) => Promise<string | undefined>): Promise<Located | null> {
  let best: (Located & { mtime: number }) | null = null
  for (const path of paths) {
    const st = await stat(path).catch(() => null)
    if (!st?.isFile() || (best && st.mtimeMs <= best.mtime)) continue
    const sessionId = await identify(path)
    if (sessionId && SAFE_NAME.test(sessionId)) best = { sessionId, path, mtime: st.mtimeMs }
  }
  return best && { sessionId: best.sessionId, path: best.path }
}

/**
 * Locating without a session id: the newest session `newest` finds for the pane's cwds. Refused
 * while another agent of the same kind works in one of those cwds, since the newest file there
 * may be that agent's.
 */
export async function locateByCwd(agent: AgentInfo, others: AgentInfo[] | undefined, newest: (cwds: string[]) => Promise<Located | null>): Promise<Location> {
  const cwds = cwdsOf(agent)
  if (!cwds.length) return { ok: false, reason: 'transcript not available yet: this agent has not reported its session id' }
  if (sharesCwdWith(agent, others)) return { ok: false, reason: 'transcript not available yet — this agent has not reported its session id' }
  const found = await newest(cwds)
  if (!found) return { ok: false, reason: 'transcript not available: no transcript file for this agent' }
  return { ok: true, located: found }
}
