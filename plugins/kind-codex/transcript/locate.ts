/**
 * Where codex keeps a session: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
 * (default `~/.codex`; older builds wrote the files straight under `sessions/`). herdr reports
 * the session id (`agent_session.kind` `id`); without one, the newest rollout whose
 * `session_meta.cwd` is the pane's cwd is taken, unless another codex shares that cwd.
 * Paths are only ever built from directory listings.
 */
import { open, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { cwdsOf, sharesCwdWith, isFile, SAFE_NAME, sessionValue, type LocateInput, type Location, type TranscriptHost } from '../../../lib/kit.ts'

export const codexHome = ({ home, env }: TranscriptHost) => env.CODEX_HOME?.trim() || join(home, '.codex')
export const sessionsDir = (host: TranscriptHost) => join(codexHome(host), 'sessions')

const ROLLOUT = /^rollout-.*\.jsonl$/
const UUID_TAIL = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i
/** Day folders searched for a session id, newest first, before giving up. */
const MAX_DAYS = 400
/** Newest rollouts whose first line is read when matching by cwd. */
const MAX_CWD_CANDIDATES = 64

/** `rollout-2025-05-07T17-24-21-<uuid>.jsonl` → `<uuid>`. */
export const idOfRollout = (name: string) => UUID_TAIL.exec(name)?.[1]

async function names(dir: string): Promise<string[]> {
  try {
    return await readdir(dir)
  } catch {
    return []
  }
}

/** Day folders (YYYY/MM/DD) newest first, then the top level for older builds. */
async function* rolloutDirs(root: string): AsyncGenerator<string> {
  const desc = (a: string[]) =>
    a
      .filter((n) => /^\d+$/.test(n))
      .sort()
      .reverse()
  let days = 0
  for (const y of desc(await names(root)))
    for (const m of desc(await names(join(root, y))))
      for (const d of desc(await names(join(root, y, m)))) {
        if (++days > MAX_DAYS) return
        yield join(root, y, m, d)
      }
  yield root
}

/** session id → file, remembered while the file is there. */
const found = new Map<string, string>()

/** The rollout of a known session id, or null when codex has not written it (yet). */
export async function findRollout(host: TranscriptHost, sid: string): Promise<string | null> {
  const root = sessionsDir(host)
  const key = `${root}\0${sid}`
  const hit = found.get(key)
  if (hit && (await isFile(hit))) return hit
  for await (const dir of rolloutDirs(root)) {
    const name = (await names(dir)).find((n) => ROLLOUT.test(n) && n.endsWith(`-${sid}.jsonl`))
    if (name && (await isFile(join(dir, name)))) {
      if (found.size > 1024) found.clear()
      found.set(key, join(dir, name))
      return join(dir, name)
    }
  }
  return null
}

export async function locateCodex({ agent, home, env, others }: LocateInput): Promise<Location> {
  const host = { home, env }
  const sid = sessionValue(agent)
  if (sid) {
    if (!SAFE_NAME.test(sid)) return { ok: false, reason: 'transcript not available: unusable session id' }
    const path = await findRollout(host, sid)
    // Known id, no file yet (codex writes it with the first turn): an empty source whose path
    // never exists; the stream's rotation check moves to the real file once it appears.
    return { ok: true, located: { sessionId: sid, path: path ?? join(sessionsDir(host), `pending-${sid}.jsonl`) } }
  }
  const cwds = cwdsOf(agent)
  if (!cwds.length) return { ok: false, reason: 'transcript not available yet: this agent has not reported its session id' }
  if (sharesCwdWith(agent, others)) return { ok: false, reason: 'transcript not available yet — this agent has not reported its session id' }
  const newest = await newestForCwd(host, cwds)
  if (!newest) return { ok: false, reason: 'transcript not available: no transcript file for this agent' }
  return { ok: true, located: newest }
}

/** The newest rollouts by name (names start with their time), whose meta names one of the cwds. */
async function newestForCwd(host: TranscriptHost, cwds: string[]) {
  const root = sessionsDir(host)
  let seen = 0
  let best: { sessionId: string; path: string; mtime: number } | null = null
  for await (const dir of rolloutDirs(root)) {
    const files = (await names(dir))
      .filter((n) => ROLLOUT.test(n))
      .sort()
      .reverse()
    for (const name of files) {
      if (++seen > MAX_CWD_CANDIDATES) return pick(best)
      const p = join(dir, name)
      const st = await stat(p).catch(() => null)
      if (!st?.isFile() || (best && st.mtimeMs <= best.mtime)) continue
      const meta = await readMeta(p)
      const sessionId = meta.id ?? idOfRollout(name)
      if (meta.cwd && cwds.includes(meta.cwd) && sessionId && SAFE_NAME.test(sessionId)) best = { sessionId, path: p, mtime: st.mtimeMs }
    }
    // Day folders are newest first: a match in a newer day beats any older one.
    if (best) return pick(best)
  }
  return pick(best)
}

const pick = (b: { sessionId: string; path: string } | null) => (b ? { sessionId: b.sessionId, path: b.path } : null)

/** `session_meta.payload` {id, cwd} from the first line (first 64 KiB; instructions can be long). */
export async function readMeta(path: string): Promise<{ id?: string; cwd?: string }> {
  const fh = await open(path, 'r').catch(() => null)
  if (!fh) return {}
  try {
    const buf = Buffer.allocUnsafe(64 << 10)
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0)
    const text = buf.toString('utf8', 0, bytesRead)
    const nl = text.indexOf('\n')
    const o = JSON.parse(nl < 0 ? text : text.slice(0, nl))
    const p = o?.type === 'session_meta' ? o.payload : o
    return { id: typeof p?.id === 'string' ? p.id : undefined, cwd: typeof p?.cwd === 'string' ? p.cwd : undefined }
  } catch {
    return {}
  } finally {
    await fh.close()
  }
}
