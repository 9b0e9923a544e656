/**
 * Where opencode keeps a session: `$XDG_DATA_HOME/opencode/storage` (default
 * `~/.local/share/opencode/storage`). herdr reports opencode's session id; without one, the
 * newest top-level session whose `directory` is the pane's cwd is taken, unless another
 * opencode shares that cwd. Newer opencode builds keep sessions in SQLite (`opencode.db`),
 * which this reader does not open.
 */
import { existsSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { cwdsOf, sharesCwdWith, isFile, SAFE_NAME, sessionValue, type LocateInput, type Location, type TranscriptHost } from '../../../lib/kit.ts'
import { readRecord } from './store.ts'

export const dataDir = ({ home, env }: TranscriptHost) => join(env.XDG_DATA_HOME?.trim() || join(home, '.local', 'share'), 'opencode')
export const storageDir = (host: TranscriptHost) => join(dataDir(host), 'storage')

/** Only the first this many project folders' sessions are read when matching by cwd. */
const MAX_SESSIONS = 2000

const SQLITE_ONLY = 'transcript not available: this opencode keeps its sessions in SQLite (opencode.db), which the bridge does not read yet'

async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort()
  } catch {
    return []
  }
}

/** The session record `session/<project>/<id>.json`, or null. */
export async function findSession(host: TranscriptHost, sid: string): Promise<{ path: string; record: Record<string, any> } | null> {
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

export async function locateOpencode({ agent, home, env, others }: LocateInput): Promise<Location> {
  const host = { home, env }
  const storage = storageDir(host)
  const sid = sessionValue(agent)
  const sqliteOnly = () => !existsSync(storage) && existsSync(join(dataDir(host), 'opencode.db'))
  if (sid) {
    if (!SAFE_NAME.test(sid)) return { ok: false, reason: 'transcript not available: unusable session id' }
    if (sqliteOnly()) return { ok: false, reason: SQLITE_ONLY }
    // Known id: stream it, even before opencode writes its first message.
    return { ok: true, located: { sessionId: sid, path: join(storage, 'message', sid) } }
  }
  const cwds = cwdsOf(agent)
  if (!cwds.length) return { ok: false, reason: 'transcript not available yet: this agent has not reported its session id' }
  if (sharesCwdWith(agent, others)) return { ok: false, reason: 'transcript not available yet — this agent has not reported its session id' }
  if (sqliteOnly()) return { ok: false, reason: SQLITE_ONLY }
  let best: { id: string; updated: number } | null = null
  let seen = 0
  const root = join(storage, 'session')
  for (const project of await names(root)) {
    for (const file of await names(join(root, project))) {
      if (!file.endsWith('.json') || ++seen > MAX_SESSIONS) continue
      const s = await readRecord(join(root, project, file))
      const id = s && str(s.id)
      if (!s || !id || !SAFE_NAME.test(id) || s.parentID || !cwds.includes(s.directory)) continue
      const updated = Number(s.time?.updated ?? s.time?.created ?? 0)
      if (!best || updated > best.updated) best = { id, updated }
    }
  }
  if (!best) return { ok: false, reason: 'transcript not available: no opencode session for this agent' }
  return { ok: true, located: { sessionId: best.id, path: join(storage, 'message', best.id) } }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
