import { statSync } from 'node:fs'
import { posix } from 'node:path'

/** A caller path: absolute, canonical (no `.`, `..`, `//`, trailing `/`), an existing directory. */
export function checkCwd(cwd: string): string | undefined {
  if (cwd.includes('\0')) return 'cwd must not contain NUL'
  if (!cwd.startsWith('/')) return 'cwd must be an absolute path'
  if (posix.normalize(cwd) !== cwd || (cwd.length > 1 && cwd.endsWith('/'))) return 'cwd must be canonical (no ., .. or //)'
  try {
    if (!statSync(cwd).isDirectory()) return `cwd is not a directory: ${cwd}`
  } catch {
    return `cwd does not exist: ${cwd}`
  }
  return undefined
}

export const NAME_RE = /^[a-z][a-z0-9_-]{0,31}$/

/** `mykind` + `w1:p2` → `mykind-w1-p2`: lower-cased, disallowed runs → `-`, ≤ 32, no trailing -/_. */
export function deriveName(kind: string, barePaneId: string): string {
  let n = `${kind}-${barePaneId}`.toLowerCase().replace(/[^a-z0-9_-]+/g, '-')
  if (!/^[a-z]/.test(n)) n = `a-${n}`
  return n.slice(0, 32).replace(/[-_]+$/, '')
}

/** Timeout for herdr's launch readiness: default 60 s, clamped to 5–300 s. */
export function clampTimeout(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms)) return 60_000
  return Math.min(300_000, Math.max(5_000, Math.round(ms)))
}
