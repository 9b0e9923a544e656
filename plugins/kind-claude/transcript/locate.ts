/**
 * Where claude keeps a session's transcript: `~/.claude/projects/<encoded cwd>/<session id>.jsonl`.
 * Never guesses another session's file.
 */
import { readdir } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { cwdsOf, isFile, locateByCwd, newestSession, parseJsonRecord, readHeadLines, SAFE_NAME, sessionValue, type LocateInput, type Location } from '../../../lib/kit.ts'

export const projectsDir = (home: string) => join(home, '.claude', 'projects')

/** `/Users/x/.herdr/w` → `-Users-x--herdr-w` (every `/` and `.` becomes `-`). */
export const encodeCwd = (cwd: string) => cwd.replace(/[/.]/g, '-')
/** Newer builds replace every non-alphanumeric character. */
const encodeCwdWide = (cwd: string) => cwd.replace(/[^A-Za-z0-9]/g, '-')

/** The file of a known session id: in the cwd's project dir, else any project dir; null when none exists. */
export async function findSessionFile(home: string, cwds: string[], sid: string): Promise<string | null> {
  const root = projectsDir(home)
  for (const cwd of cwds) {
    for (const dir of new Set([encodeCwd(cwd), encodeCwdWide(cwd)])) {
      const p = join(root, dir, `${sid}.jsonl`)
      if (await isFile(p)) return p
    }
  }
  let dirs: string[] = []
  try {
    dirs = (await readdir(root)).sort()
  } catch {
    return null
  }
  for (const d of dirs) {
    const p = join(root, d, `${sid}.jsonl`)
    if (await isFile(p)) return p
  }
  return null
}

export async function locateClaude({ agent, home, others }: LocateInput): Promise<Location> {
  const sid = sessionValue(agent)
  if (!sid) return locateByCwd(agent, others, (cwds) => newestForCwd(home, cwds))
  if (!SAFE_NAME.test(sid)) return { ok: false, reason: 'transcript not available: unusable session id' }
  const cwds = cwdsOf(agent)
  const found = await findSessionFile(home, cwds, sid)
  if (found) return { ok: true, located: { sessionId: sid, path: found } }
  // Known id, no file yet: an empty source at the future path that streams once it appears.
  if (cwds.length) return { ok: true, located: { sessionId: sid, path: join(projectsDir(home), encodeCwd(cwds[0]), `${sid}.jsonl`) } }
  return { ok: false, reason: 'transcript not available: no transcript file for this session' }
}

/** The newest session file in the cwds' project dirs whose records were written in one of the cwds. */
async function newestForCwd(home: string, cwds: string[]) {
  const paths: string[] = []
  for (const cwd of cwds) {
    const dir = join(projectsDir(home), encodeCwd(cwd))
    for (const name of await readdir(dir).catch(() => [])) if (name.endsWith('.jsonl')) paths.push(join(dir, name))
  }
  return newestSession(paths, async (p) => {
    const sid = basename(p).slice(0, -6)
    return SAFE_NAME.test(sid) && cwds.includes((await recordedCwd(p)) ?? '') ? sid : undefined
  })
}

/** The first `cwd` field among the first 10 non-empty lines (read from the first 256 KiB). */
async function recordedCwd(path: string): Promise<string | undefined> {
  for (const l of await readHeadLines(path, 256 << 10, 10)) {
    const cwd = parseJsonRecord(l)?.cwd
    if (typeof cwd === 'string') return cwd
  }
  return undefined
}
