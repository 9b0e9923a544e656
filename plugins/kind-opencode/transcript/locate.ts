/**
 * Where opencode keeps a session: `$XDG_DATA_HOME/opencode/storage` (default
 * `~/.local/share/opencode/storage`). herdr reports opencode's session id; without one, the
 * newest top-level session whose `directory` is the pane's cwd is taken, unless another
 * opencode shares that cwd. Newer opencode builds keep sessions in SQLite (`opencode.db`), read
 * through node:sqlite where the runtime has it (sqlite.ts); the kind's README says how the two
 * stores are told apart.
 */
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { cwdsOf, field, sharesCwdWith, isFile, SAFE_NAME, sessionValue, type LocateInput, type Location, type TranscriptHost } from '../../../lib/kit.ts'
import { readRecord } from './store.ts'
import { newestSession, READABLE_PROBE, sqliteUnavailable, withDb } from './sqlite.ts'

export const dataDir = ({ home, env }: TranscriptHost) => join(env.XDG_DATA_HOME?.trim() || join(home, '.local', 'share'), 'opencode')
export const storageDir = (host: TranscriptHost) => join(dataDir(host), 'storage')

/** Only the first this many project folders' sessions are read when matching by cwd. */
const MAX_SESSIONS = 2000

/** opencode's database: `opencode.db`, or `opencode-<channel>.db` for builds of other release channels. */
const DB_FILE = /^opencode(-[A-Za-z0-9._-]+)?\.db$/

async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort()
  } catch {
    return []
  }
}

/** The session record `session/<project>/<id>.json`, or null. */
export async function findSession(host: TranscriptHost, sid: string): Promise<{ path: string; record: Record<string, unknown> } | null> {
  const root = join(storageDir(host), 'session')
  for (const project of await names(root)) {
    const p = join(root, project, `${sid}.json`)
    if (await isFile(p)) {
      const record = await readRecord(p)
      if (record) return { path: p, record }
    }
  }
  return null
}

const mtimeOf = (p: string) =>
  stat(p)
    .then((st) => st.mtimeMs)
    .catch(() => 0)
/** The latest mtime among `paths` (0 when none exists). */
const newestMtime = async (paths: string[]) => Math.max(0, ...(await Promise.all(paths.map(mtimeOf))))

export interface CurrentDatabase {
  name: string
  path: string
  /** How the reasons name it: `opencode.db`, or `opencode.db, written after the older storage/ folder beside it`. */
  described: string
}

/**
 * opencode's database when it is the current store, or undefined when the JSON tree is. opencode
 * copies the tree into the database when it first opens one and leaves the tree behind, so both
 * are often present: whichever was written last (the database or its `-wal`) is current. The
 * tree's folders change with every new message (`part/<message>/` is created).
 */
export async function currentDatabase(host: TranscriptHost): Promise<CurrentDatabase | undefined> {
  const dbs = (await names(dataDir(host))).filter((n) => DB_FILE.test(n))
  if (!dbs.length) return undefined
  let db = { name: '', time: -1 }
  for (const name of dbs) {
    const time = await newestMtime([join(dataDir(host), name), join(dataDir(host), `${name}-wal`)])
    if (time > db.time) db = { name, time }
  }
  const storage = storageDir(host)
  const tree = await newestMtime([storage, join(storage, 'session'), join(storage, 'message'), join(storage, 'part')])
  if (tree && db.time < tree) return undefined
  return { name: db.name, path: join(dataDir(host), db.name), described: tree ? `${db.name}, written after the older storage/ folder beside it` : db.name }
}

/** Why the current database cannot be read here (no node:sqlite, or not a database), or undefined. */
export async function databaseReason(db: CurrentDatabase): Promise<string | undefined> {
  const missing = await sqliteUnavailable()
  if (missing) return `transcript not available: this opencode keeps its sessions in SQLite (${db.described}); ${missing}`
  try {
    await withDb(db.path, (d) => d.prepare(READABLE_PROBE).all())
    return undefined
  } catch (err) {
    return `transcript not available: this opencode's SQLite store (${db.described}) could not be read: ${String((err as Error).message).split('\n')[0]}`
  }
}

/** Locates the session in the database: herdr's id, else the cwd's newest top-level session. */
async function locateInDatabase(db: CurrentDatabase, { agent, others }: LocateInput, sid: string | undefined): Promise<Location> {
  const why = await databaseReason(db)
  if (why) return { ok: false, reason: why }
  if (sid) return { ok: true, located: { sessionId: sid, path: db.path } }
  const cwds = cwdsOf(agent)
  if (!cwds.length) return { ok: false, reason: 'transcript not available yet: this agent has not reported its session id' }
  if (sharesCwdWith(agent, others)) return { ok: false, reason: 'transcript not available yet — this agent has not reported its session id' }
  const id = await newestSession(db.path, cwds).catch(() => undefined)
  if (!id || !SAFE_NAME.test(id)) return { ok: false, reason: 'transcript not available: no opencode session for this agent' }
  return { ok: true, located: { sessionId: id, path: db.path } }
}

export async function locateOpencode({ agent, home, env, others }: LocateInput): Promise<Location> {
  const host = { home, env }
  const storage = storageDir(host)
  const sid = sessionValue(agent)
  if (sid && !SAFE_NAME.test(sid)) return { ok: false, reason: 'transcript not available: unusable session id' }
  // Before anything is located in the tree: a session found there may be a stale copy.
  const db = await currentDatabase(host)
  if (db) return locateInDatabase(db, { agent, home, env, others }, sid)
  // Known id: stream it, even before opencode writes its first message.
  if (sid) return { ok: true, located: { sessionId: sid, path: join(storage, 'message', sid) } }
  const cwds = cwdsOf(agent)
  if (!cwds.length) return { ok: false, reason: 'transcript not available yet: this agent has not reported its session id' }
  if (sharesCwdWith(agent, others)) return { ok: false, reason: 'transcript not available yet — this agent has not reported its session id' }
  let best: { id: string; updated: number } | null = null
  let seen = 0
  const root = join(storage, 'session')
  for (const project of await names(root)) {
    for (const file of await names(join(root, project))) {
      if (!file.endsWith('.json') || ++seen > MAX_SESSIONS) continue
      const s = await readRecord(join(root, project, file))
      const id = s && str(s.id)
      if (!s || !id || !SAFE_NAME.test(id) || s.parentID || typeof s.directory !== 'string' || !cwds.includes(s.directory)) continue
      const updated = Number(field(s.time, 'updated') ?? field(s.time, 'created') ?? 0)
      if (!best || updated > best.updated) best = { id, updated }
    }
  }
  if (!best) return { ok: false, reason: 'transcript not available: no opencode session for this agent' }
  return { ok: true, located: { sessionId: best.id, path: join(storage, 'message', best.id) } }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
