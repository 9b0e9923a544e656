/**
 * Whether the daemon may trust its data dir and the config files it would load: each must be
 * owned by the user running the daemon (or root) and not writable by group or others. Another
 * user who owns or can write the data dir could plant an admin token in `config.json` or code
 * in `bridge.config.mjs`, which `serve` would run with this user's rights; so `serve` checks
 * before it reads anything there and stops with one line naming the path and the fix.
 */
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs'
import { dirname, join } from 'node:path'
import { userInfo } from 'node:os'

/** One path that may not be trusted, as the line `serve` stops with. */
export class UntrustedPathError extends Error {}

const S_ISVTX = 0o1000

function currentUser(): { uid: number; name: string } {
  try {
    const u = userInfo()
    return { uid: u.uid, name: u.username }
  } catch {
    return { uid: process.getuid?.() ?? -1, name: String(process.getuid?.() ?? '') }
  }
}

/** The one-line refusal for `path`, or null when it may be trusted. */
export function judgePath(path: string, st: Stats, uid = currentUser().uid, user = currentUser().name): string | null {
  const kind = st.isDirectory() ? 'directory' : 'file'
  if (st.uid !== uid && st.uid !== 0)
    return `${path}: the ${kind} is owned by uid ${st.uid}, not by you (${user}, uid ${uid}); fix: chown ${user} ${path}, or use a data dir of your own`
  if (st.mode & 0o022) {
    const mode = (st.mode & 0o7777).toString(8).padStart(4, '0')
    return `${path}: the ${kind} is writable by ${st.mode & 0o002 ? 'others' : 'its group'} (mode ${mode}); fix: chmod go-w ${path}`
  }
  return null
}

/**
 * The data dir and every entry directly in it (config.json, devices.json, keys, the user config,
 * the folders of indexes), symlinks judged by what they point at; a missing data dir is made
 * later with mode 0700 and passes. Throws UntrustedPathError with the first problem.
 */
export function checkDataDir(dataDir: string): void {
  let st: Stats
  try {
    st = statSync(dataDir)
  } catch {
    return
  }
  fail(judgePath(dataDir, st))
  let names: string[] = []
  try {
    names = readdirSync(dataDir)
  } catch {
    return
  }
  for (const name of names.sort()) {
    const path = join(dataDir, name)
    let entry: Stats
    try {
      entry = lstatSync(path)
      // A link is trusted for what it names: its target's owner and mode count, not the link's.
      if (entry.isSymbolicLink()) entry = statSync(path)
    } catch {
      continue
    }
    fail(judgePath(path, entry))
  }
}

/**
 * A config file named by --config or BRIDGE_CONFIG: the file, and the folder it is in (which
 * could swap it) unless that folder is sticky (/tmp: others cannot replace a file they do not own).
 */
export function checkConfigFile(file: string): void {
  fail(judgePath(file, statSync(file)))
  const dir = dirname(file)
  const ds = statSync(dir)
  if (ds.mode & S_ISVTX && (ds.uid === currentUser().uid || ds.uid === 0)) return
  fail(judgePath(dir, ds))
}

function fail(problem: string | null): void {
  if (problem) throw new UntrustedPathError(problem)
}
