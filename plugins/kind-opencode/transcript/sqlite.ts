/**
 * opencode's SQLite store (`opencode.db`, or `opencode-<channel>.db`), read through Node's own
 * `node:sqlite` where the runtime has it (Node 22.5 and later). Tables as opencode's schema
 * (packages/opencode/src/session/session.sql.ts) defines them: `session` (id, parent_id,
 * directory, time_updated…), `message` (id, session_id, time_created, data) and `part` (id,
 * message_id, data); `data` is the record's JSON without its ids.
 *
 * Every read opens the file read-only, runs its queries and closes it again: SQLite's own WAL
 * protocol then shows it what opencode committed, still in `-wal` or not, and a reader never holds
 * a lock or a snapshot that keeps opencode from writing or checkpointing. A busy moment (WAL
 * recovery) waits at most `BUSY_MS`.
 */
import { loadSqlite, SQLITE_MISSING, type SqliteDatabase, type SqliteModule } from '../../../lib/node-support.ts'
import { isObj } from '../../../lib/kit.ts'
import type { SessionRecords } from './store.ts'

const BUSY_MS = 1000
/** A record larger than this is not parsed (opencode's are a few KiB). */
const MAX_RECORD = 8 << 20

let sqlite: Promise<SqliteModule | undefined> | undefined
/** node:sqlite, loaded once; undefined on a runtime without it. */
export const sqliteModule = () => (sqlite ??= loadSqlite())

/** Why this runtime cannot read opencode's database, or undefined when it can. */
export async function sqliteUnavailable(): Promise<string | undefined> {
  return (await sqliteModule()) ? undefined : SQLITE_MISSING
}

/** Runs `fn` on a read-only connection that is closed right after. */
export async function withDb<T>(path: string, fn: (db: SqliteDatabase) => T): Promise<T> {
  const mod = await sqliteModule()
  if (!mod) throw new Error(SQLITE_MISSING)
  const db = new mod.DatabaseSync(path, { readOnly: true, timeout: BUSY_MS })
  try {
    return fn(db)
  } finally {
    db.close()
  }
}

function parse(data: unknown): Record<string, unknown> | null {
  if (typeof data !== 'string' || data.length > MAX_RECORD) return null
  try {
    const o = JSON.parse(data)
    return isObj(o) ? o : null
  } catch {
    return null
  }
}

/**
 * One session's records in the database. A read that fails (the file went, a moment's lock) gives
 * nothing this time, and the next poll reads again: a failed part read keeps its message open.
 */
export function sqliteRecords(path: string, sessionId: string): SessionRecords {
  return {
    messages: () =>
      withDb(path, (db) => db.prepare('SELECT id FROM message WHERE session_id = ? ORDER BY time_created, id').all(sessionId)).then(
        (rows) => rows.map((r) => String(r.id)),
        () => [],
      ),
    message: (id) => withDb(path, (db) => parse(db.prepare('SELECT data FROM message WHERE id = ? AND session_id = ?').get(id, sessionId)?.data)).catch(() => null),
    parts: (messageId) =>
      withDb(path, (db) => db.prepare('SELECT id, data FROM part WHERE message_id = ? ORDER BY id').all(messageId)).then(
        (rows) =>
          rows.map((r) => {
            const part = parse(r.data)
            return part && { ...part, id: String(r.id) }
          }),
        () => [null],
      ),
  }
}

/** The newest top-level session whose directory is one of `cwds`, or undefined. */
export async function newestSession(path: string, cwds: string[]): Promise<string | undefined> {
  if (!cwds.length) return undefined
  const row = await withDb(path, (db) =>
    db.prepare(`SELECT id FROM session WHERE parent_id IS NULL AND directory IN (${cwds.map(() => '?').join(', ')}) ORDER BY time_updated DESC, id DESC LIMIT 1`).get(...cwds),
  )
  return row ? String(row.id) : undefined
}

/** The query that proves a file is opencode's database and readable here (locate.ts, sessionUpdated). */
export const READABLE_PROBE = 'SELECT id FROM message LIMIT 1'

/**
 * A session's last update (ms), or undefined; rejects when the database fails READABLE_PROBE,
 * which runs on the same connection (one open of the file per answer).
 */
export async function sessionUpdated(path: string, sessionId: string): Promise<number | undefined> {
  const row = await withDb(path, (db) => {
    db.prepare(READABLE_PROBE).all()
    return db.prepare('SELECT time_updated FROM session WHERE id = ?').get(sessionId)
  })
  const t = Number(row?.time_updated)
  return Number.isFinite(t) && t > 0 ? t : undefined
}
