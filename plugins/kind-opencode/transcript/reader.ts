/** The opencode transcript capability: its JSON store or its SQLite database, opened read-only and polled. */
import { dirname } from 'node:path'
import { field, SAFE_NAME, sessionValue, type TranscriptCapability } from '../../../lib/kit.ts'
import { currentDatabase, findSession, locateOpencode } from './locate.ts'
import { openSession } from './store.ts'
import { sessionUpdated, sqliteRecords } from './sqlite.ts'

export const opencodeTranscript: TranscriptCapability = {
  locate: locateOpencode,
  // located.path is the database file, or `<storage>/message/<session>` for the JSON tree.
  open: (located) =>
    /\.db$/.test(located.path)
      ? openSession(located.path, located.sessionId, () => sqliteRecords(located.path, located.sessionId))
      : openSession(dirname(dirname(located.path)), located.sessionId),
  async lastActivity(agent, host) {
    const sid = sessionValue(agent)
    if (!sid || !SAFE_NAME.test(sid)) return undefined
    // The tree's copy of a session that now lives in SQLite is dated when it was copied: the
    // database dates it, or nothing does where it cannot be read.
    // A database that cannot be read here (databaseReason) dates nothing: sessionUpdated runs the
    // same probe on its own connection instead of opening the file twice.
    const db = await currentDatabase(host)
    if (db) return sessionUpdated(db.path, sid).catch(() => undefined)
    const s = await findSession(host, sid)
    const t = Number(field(s?.record.time, 'updated'))
    return Number.isFinite(t) && t > 0 ? t : undefined
  },
}
