/** The opencode transcript capability: its JSON store, opened read-only and polled. */
import { dirname } from 'node:path'
import { SAFE_NAME, sessionValue, type TranscriptCapability } from '../../../lib/kit.ts'
import { findSession, locateOpencode } from './locate.ts'
import { openSession } from './store.ts'

export const opencodeTranscript: TranscriptCapability = {
  locate: locateOpencode,
  // located.path is `<storage>/message/<session>`.
  open: (located) => openSession(dirname(dirname(located.path)), located.sessionId),
  async lastActivity(agent, host) {
    const sid = sessionValue(agent)
    if (!sid || !SAFE_NAME.test(sid)) return undefined
    const s = await findSession(host, sid)
    const t = Number(s?.record.time?.updated)
    return Number.isFinite(t) && t > 0 ? t : undefined
  },
}
