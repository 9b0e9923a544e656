/** Where claude keeps a session's transcript (reference-facts §5.1). Never guesses another session's file. */
import { readdir, stat, open } from 'node:fs/promises'
import { join } from 'node:path'
import { cwdsOf, isFile, SAFE_NAME, sessionValue, sharesCwdWith, type LocateInput, type Location } from '../../../lib/kit.ts'

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
  const cwds = cwdsOf(agent)
  if (sid) {
    if (!SAFE_NAME.test(sid)) return { ok: false, reason: 'transcript not available: unusable session id' }
    const found = await findSessionFile(home, cwds, sid)
    if (found) return { ok: true, located: { sessionId: sid, path: found } }
    // Known id, no file yet: an empty source at the future path that streams once it appears.
    if (cwds.length) return { ok: true, located: { sessionId: sid, path: join(projectsDir(home), encodeCwd(cwds[0]), `${sid}.jsonl`) } }
    return { ok: false, reason: 'transcript not available: no transcript file for this session' }
  }
  if (!cwds.length) return { ok: false, reason: 'transcript not available yet: this agent has not reported its session id' }
  // Without an id the newest file of the cwd is only safe when no other claude shares that cwd.
  if (sharesCwdWith(agent, others)) return { ok: false, reason: 'transcript not available yet — this agent has not reported its session id' }
  const newest = await newestForCwd(home, cwds)
  if (!newest) return { ok: false, reason: 'transcript not available: no transcript file for this agent' }
  return { ok: true, located: newest }
}

async function newestForCwd(home: string, cwds: string[]) {
  let best: { sessionId: string; path: string; mtime: number } | null = null
  for (const cwd of cwds) {
    const dir = join(projectsDir(home), encodeCwd(cwd))
    let names: string[] = []
    try {
      names = await readdir(dir)
    } catch {
      continue
    }
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue
      const sid = name.slice(0, -6)
      if (!SAFE_NAME.test(sid)) continue
      const p = join(dir, name)
      const st = await stat(p).catch(() => null)
      if (!st?.isFile() || (best && st.mtimeMs <= best.mtime)) continue
      if (cwds.includes((await recordedCwd(p)) ?? '')) best = { sessionId: sid, path: p, mtime: st.mtimeMs }
    }
  }
  return best ? { sessionId: best.sessionId, path: best.path } : null
}

/** The first `cwd` field among the first 10 non-empty lines (read from the first 256 KiB). */
async function recordedCwd(path: string): Promise<string | undefined> {
  const fh = await open(path, 'r').catch(() => null)
  if (!fh) return undefined
  try {
    const buf = Buffer.allocUnsafe(256 << 10)
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0)
    const lines = buf
      .toString('utf8', 0, bytesRead)
      .split('\n')
      .filter((l) => l.trim())
      .slice(0, 10)
    for (const l of lines) {
      try {
        const o = JSON.parse(l)
        if (typeof o?.cwd === 'string') return o.cwd
      } catch {}
    }
    return undefined
  } finally {
    await fh.close()
  }
}
