/** The codex transcript capability: locate, normalize, and dating for the snapshot and card. */
import { lastTimestamp, SAFE_NAME, sessionValue, summarizeTail, type AgentInfo, type TranscriptCapability, type TranscriptHost, moduleBeside } from '../../../lib/kit.ts'
import { findRollout, locateCodex } from './locate.ts'
import { countCodexLine, normalizeCodexLine } from './normalize.ts'

/** The snapshot and card use only the session herdr reported: they never guess. */
async function knownRollout(agent: AgentInfo, host: TranscriptHost): Promise<string | null> {
  const sid = sessionValue(agent)
  return sid && SAFE_NAME.test(sid) ? findRollout(host, sid) : null
}

export const codexTranscript: TranscriptCapability = {
  locate: locateCodex,
  normalize: normalizeCodexLine,
  count: countCodexLine,
  counter: moduleBeside(import.meta.url, './count.ts'),
  async lastActivity(agent, host) {
    const p = await knownRollout(agent, host)
    return p ? lastTimestamp(p) : undefined
  },
  async summary(agent, host) {
    const p = await knownRollout(agent, host)
    return p ? summarizeTail(p, normalizeCodexLine) : undefined
  },
}
