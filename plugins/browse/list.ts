import { closeSync, constants, existsSync, openSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { HttpError } from '../../core/respond.ts'
import { realLocationSync } from '../../lib/real-location.ts'
import { RESOURCE_CODES } from '../../lib/exec.ts'
import { rootOf, type BrowseRoot } from './roots.ts'

/** Most entries one listing returns; the rest are cut and `truncated` is set. */
export const BROWSE_LIMIT = 500

export interface BrowseEntry {
  name: string
  path: string
  is_repo: boolean
  is_symlink: boolean
  open_workspace_id: string
}

export interface BrowseResult {
  path: string
  parent: string
  is_repo: boolean
  open_workspace_id: string
  roots: BrowseRoot[]
  entries: BrowseEntry[]
  truncated: boolean
  limit: number
}

// Made on the first listing: a collator loads ICU's collation data, 3.4 MiB of RSS an idle daemon need not hold.
let collator: Intl.Collator | undefined
const byName = (a: string, b: string) => (collator ??= new Intl.Collator('en', { sensitivity: 'base' })).compare(a, b) || (a < b ? -1 : a > b ? 1 : 0)

const OUTSIDE = 'path is outside the browsable roots'

/** A listing that failed: out of descriptors or memory is the bridge's trouble (503), anything else the directory's. */
function unreadable(err: unknown): HttpError {
  const code = (err as NodeJS.ErrnoException)?.code
  if (code && RESOURCE_CODES.has(code)) return new HttpError(503, `cannot list the directory now: the bridge is out of resources (${code}); retry later`)
  return new HttpError(403, 'directory is not readable')
}

/**
 * Resolves a caller path for browsing: `..` and symlinks are resolved before the root check, and a
 * path that does not resolve is "missing" only when it lies inside a root both nominally and
 * after resolving its existing part; otherwise it gets the same 403 as an existing path, so
 * nothing outside the roots can be probed (not even through a symlink that leads out).
 */
export function resolveBrowsePath(input: string, roots: BrowseRoot[]): string {
  if (!isAbsolute(input)) throw new HttpError(400, 'path must be absolute')
  if (input.includes('\0')) throw new HttpError(400, 'path must not contain NUL')
  const nominal = resolve(input)
  let real: string
  try {
    real = realpathSync(nominal)
  } catch {
    // Judged by where the existing part leads, so a symlink inside a root cannot probe outside it.
    if (rootOf(nominal, roots) && rootOf(realLocationSync(nominal), roots)) throw new HttpError(404, 'no such directory')
    throw new HttpError(403, OUTSIDE)
  }
  if (!rootOf(real, roots)) throw new HttpError(403, OUTSIDE)
  let isDir = false
  try {
    isDir = statSync(real).isDirectory()
  } catch {}
  if (!isDir) throw new HttpError(404, 'not a directory')
  return real
}

/**
 * Lists `dir` through a descriptor whose kernel path must still be `dir`: a directory on the
 * path swapped for a symlink after resolveBrowsePath checked it lists nothing outside the roots.
 */
function readConfinedDir(dir: string): import('node:fs').Dirent[] {
  let fd: number
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY)
  } catch (err) {
    throw unreadable(err)
  }
  try {
    const proc = `/proc/self/fd/${fd}`
    let opened: string | null = null
    try {
      opened = readlinkSync(proc)
    } catch {}
    if (opened !== null && opened !== dir) throw new HttpError(409, 'the directory was moved or replaced while listing it; try again')
    try {
      return readdirSync(opened !== null ? proc : dir, { withFileTypes: true })
    } catch (err) {
      throw unreadable(err)
    }
  } finally {
    closeSync(fd)
  }
}

export const isRepo = (dir: string) => existsSync(join(dir, '.git'))

/** Directories (and symlinks to directories inside the roots) of `dir`, sorted by name. */
export function listDirectory(dir: string, roots: BrowseRoot[], opts: { hidden: boolean; openWorkspaces: Map<string, string>; limit?: number }): BrowseResult {
  const limit = opts.limit ?? BROWSE_LIMIT
  const dirents = readConfinedDir(dir)
  // Sort names first so the stat work stops at the limit, however large the directory.
  const candidates = dirents.filter((d) => (opts.hidden || !d.name.startsWith('.')) && (d.isDirectory() || d.isSymbolicLink())).sort((a, b) => byName(a.name, b.name))
  const entries: BrowseEntry[] = []
  let truncated = false
  for (const d of candidates) {
    const path = join(dir, d.name)
    let target = path
    if (d.isSymbolicLink()) {
      // Only links that land on a directory inside the roots are shown.
      try {
        target = realpathSync(path)
        if (!statSync(target).isDirectory() || !rootOf(target, roots)) continue
      } catch {
        continue
      }
    }
    if (entries.length === limit) {
      truncated = true
      break
    }
    entries.push({
      name: d.name,
      path,
      is_repo: isRepo(target),
      is_symlink: d.isSymbolicLink(),
      open_workspace_id: opts.openWorkspaces.get(path) ?? opts.openWorkspaces.get(target) ?? '',
    })
  }
  const parent = dirname(dir)
  return {
    path: dir,
    parent: parent !== dir && rootOf(parent, roots) ? parent : '',
    is_repo: isRepo(dir),
    open_workspace_id: opts.openWorkspaces.get(dir) ?? '',
    roots,
    entries,
    truncated,
    limit,
  }
}
