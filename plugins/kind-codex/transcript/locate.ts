/**
 * Where codex keeps a session: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
 * (default `~/.codex`; older builds wrote the files straight under `sessions/`). herdr reports
 * the session id (`agent_session.kind` `id`); without one, the newest rollout whose
 * `session_meta.cwd` is the pane's cwd is taken, unless another codex shares that cwd.
 * Paths are only ever built from directory listings.
 */
import { readdir } from 'node:fs/promises'
import { basename, join } from 'node:path'
import {
  isFile,
  locateByCwd,
  newestSession,
  field,
  parseJsonRecord,
  str,
  readHeadLines,
  SAFE_NAME,
  sessionValue,
  type LocateInput,
  type Location,
  type TranscriptHost,
} from '../../../lib/kit.ts'

export const codexHome = ({ home, env }: TranscriptHost) => env.CODEX_HOME?.trim() || join(home, '.codex')
export const sessionsDir = (host: TranscriptHost) => join(codexHome(host), 'sessions')

const ROLLOUT = /^rollout-.*\.jsonl$/
const UUID_TAIL = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i
/** Day folders searched for a session id on every look-up, newest first. */
const MAX_DAYS = 400
/** Day folders past those searched once per id that is not in them: a resumed old session. */
const MAX_OLD_DAYS = 10_000
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

/**
 * Day folders (YYYY/MM/DD) newest first, from the `skip`th and at most `max` of them, then (for
 * the newest ones only) the top level, where older builds wrote. Folders are listed as reached.
 */
async function* rolloutDirs(root: string, skip = 0, max = MAX_DAYS): AsyncGenerator<string> {
  const desc = (a: string[]) =>
    a
      .filter((n) => /^\d+$/.test(n))
      .sort()
      .reverse()
  let days = 0
  walk: for (const y of desc(await names(root)))
    for (const m of desc(await names(join(root, y))))
      for (const d of desc(await names(join(root, y, m)))) {
        if (++days > skip + max) break walk
        if (days > skip) yield join(root, y, m, d)
      }
  if (!skip) yield root
}

/** session id → file, remembered while the file is there. */
const found = new Map<string, string>()
/** Ids already searched for past the newest day folders. */
const searchedOld = new Set<string>()

async function findIn(dirs: AsyncIterable<string>, sid: string): Promise<string | null> {
  for await (const dir of dirs) {
    const name = (await names(dir)).find((n) => ROLLOUT.test(n) && n.endsWith(`-${sid}.jsonl`))
    if (name && (await isFile(join(dir, name)))) return join(dir, name)
  }
  return null
}

/** The rollout of a known session id, or null when codex has not written it (yet). */
export async function findRollout(host: TranscriptHost, sid: string): Promise<string | null> {
  const root = sessionsDir(host)
  const key = `${root}\0${sid}`
  const hit = found.get(key)
  if (hit && (await isFile(hit))) return hit
  let path = await findIn(rolloutDirs(root), sid)
  // A resumed session appends to the rollout it began, which can be older than the newest day
  // folders. Codex writes a new session into today's folder, so an id missing from the old
  // folders stays missing there: they are searched once per id, not on every look-up.
  if (!path && !searchedOld.has(key)) {
    if (searchedOld.size > 1024) searchedOld.clear()
    searchedOld.add(key)
    path = await findIn(rolloutDirs(root, MAX_DAYS, MAX_OLD_DAYS), sid)
  }
  if (path) {
    if (found.size > 1024) found.clear()
    found.set(key, path)
  }
  return path
}

export async function locateCodex({ agent, home, env, others }: LocateInput): Promise<Location> {
  const host = { home, env }
  const sid = sessionValue(agent)
  if (!sid) return locateByCwd(agent, others, (cwds) => newestForCwd(host, cwds))
  if (!SAFE_NAME.test(sid)) return { ok: false, reason: 'transcript not available: unusable session id' }
  const path = await findRollout(host, sid)
  // Known id, no file yet (codex writes it with the first turn): an empty source whose path
  // never exists; the stream's rotation check moves to the real file once it appears.
  return { ok: true, located: { sessionId: sid, path: path ?? join(sessionsDir(host), `pending-${sid}.jsonl`) } }
}

/** The newest rollouts by name (names start with their time), whose meta names one of the cwds. */
async function newestForCwd(host: TranscriptHost, cwds: string[]) {
  let left = MAX_CWD_CANDIDATES
  for await (const dir of rolloutDirs(sessionsDir(host))) {
    const files = (await names(dir))
      .filter((n) => ROLLOUT.test(n))
      .sort()
      .reverse()
      .slice(0, left)
    left -= files.length
    const best = await newestSession(
      files.map((n) => join(dir, n)),
      async (p) => {
        const meta = await readMeta(p)
        return meta.cwd && cwds.includes(meta.cwd) ? (meta.id ?? idOfRollout(basename(p))) : undefined
      },
    )
    // Day folders are newest first: a match in a newer day beats any older one.
    if (best || left <= 0) return best
  }
  return null
}

/** `session_meta.payload` {id, cwd} from the first line (first 64 KiB; instructions can be long). */
export async function readMeta(path: string): Promise<{ id?: string; cwd?: string }> {
  const o = parseJsonRecord((await readHeadLines(path, 64 << 10))[0] ?? '')
  const p = o?.type === 'session_meta' ? o.payload : o
  return { id: str(field(p, 'id')), cwd: str(field(p, 'cwd')) }
}
