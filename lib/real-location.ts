/**
 * Where a path that may not exist really lies, for confinement checks (/browse, /diff/expand).
 *
 *   realLocation(abs) → realpath of the deepest existing ancestor + the missing rest   (never throws)
 *
 * Checking a missing path only by its nominal form lets a symlink inside a root probe outside it
 * (`root/link-out/a` missing → 404, present → 403). Resolving the part that exists first makes
 * the answer depend only on where the path lands, not on what exists there.
 */
import { realpathSync } from 'node:fs'
import { realpath } from 'node:fs/promises'
import { dirname, join, basename } from 'node:path'

/** `abs` must be absolute and normalised (no `..`). */
export function realLocationSync(abs: string): string {
  const rest: string[] = []
  for (let at = trimSlash(abs); ; at = dirname(at)) {
    try {
      return join(realpathSync(at), ...rest.reverse())
    } catch {
      if (dirname(at) === at) return abs
      rest.push(basename(at))
    }
  }
}

export async function realLocation(abs: string): Promise<string> {
  const rest: string[] = []
  for (let at = trimSlash(abs); ; at = dirname(at)) {
    try {
      return join(await realpath(at), ...rest.reverse())
    } catch {
      if (dirname(at) === at) return abs
      rest.push(basename(at))
    }
  }
}

/** `link/` to a file fails realpath (ENOTDIR) though `link` exists: judge `link` itself. */
const trimSlash = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') || '/' : p)
