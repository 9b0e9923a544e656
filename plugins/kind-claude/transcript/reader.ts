/** The claude transcript reader: locate, normalize, roster, activity dating. */
import { type AgentInfo, cwdsOf, lastTimestamp, summarizeTail, SAFE_NAME, sessionValue, type Located, type TranscriptReader, moduleBeside } from '../../../lib/kit.ts'
import { countClaudeLine, normalizeClaudeLine } from './normalize.ts'
import { findSessionFile, locateClaude } from './locate.ts'
import { claudeRoster, subagentPath } from './roster.ts'

/** Lookups in flight: the snapshot asks lastActivity and subagentCounts of one agent side by side. */
const finding = new Map<string, Promise<string | null>>()

/** The snapshot dates only sessions whose id herdr reported: it never guesses. */
async function knownSession(agent: AgentInfo, home: string): Promise<Located | undefined> {
  const sid = sessionValue(agent)
  if (!sid || !SAFE_NAME.test(sid)) return undefined
  // Once each: a pane's foreground cwd is most often its cwd.
  const cwds = cwdsOf(agent)
  const key = [home, sid, ...cwds].join('\0')
  let found = finding.get(key)
  if (!found) {
    // Shared only while it runs: a later ask looks again, so nothing here can go stale.
    const p = findSessionFile(home, cwds, sid).finally(() => finding.delete(key))
    finding.set(key, (found = p))
  }
  const path = await found
  return path ? { sessionId: sid, path } : undefined
}

export const claudeTranscript: TranscriptReader = {
  locate: locateClaude,
  normalize: normalizeClaudeLine,
  count: countClaudeLine,
  counter: moduleBeside(import.meta.url, './count.ts'),
  roster: claudeRoster,
  subagentPath,
  async lastActivity(agent, { home }) {
    const s = await knownSession(agent, home)
    return s ? lastTimestamp(s.path) : undefined
  },
  async summary(agent, { home }) {
    const s = await knownSession(agent, home)
    return s ? summarizeTail(s.path, normalizeClaudeLine) : undefined
  },
  async subagentCounts(agent, { home }) {
    const s = await knownSession(agent, home)
    if (!s) return undefined
    const rows = await claudeRoster(s)
    if (!rows.length) return undefined
    return { total: rows.length, running: rows.filter((r) => !r.done).length }
  },
}
