/** The opencode transcript capability: its JSON store, opened read-only and polled. */
import { dirname } from 'node:path'
import { SAFE_NAME, sessionValue, type TranscriptCapability } from '../../../lib/kit.ts'
import { findSession, locateOpencode, sqliteReason } from './locate.ts'
import { openSession } from './store.ts'

export const opencodeTranscript: TranscriptCapability = {
  locate: locateOpencode,
  // located.path is `<storage>/message/<session>`.
  open: (located) => openSession(dirname(dirname(located.path)), located.sessionId),
  async lastActivity(agent, host) {
    const sid = sessionValue(agent)
    // The tree's copy of a session that now lives in SQLite is dated when it was copied.
    if (!sid || !SAFE_NAME.test(sid) || (await sqliteReason(host))) return undefined
    const s = await findSession(host, sid)
    const t = Number(s?.record.time?.updated)
    return Number.isFinite(t) && t > 0 ? t : undefined
  },
}
