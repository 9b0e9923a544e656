/**
 * The per-pane drop directory `<cwd>/.herdr-bridge/{images,files}/`: created on first write with
 * a `.gitignore` of `*` (so the repository stays clean), never followed through a symlink (a
 * checked-in `.herdr-bridge` link must not redirect writes or pruning), pruned on every write to
 * files of at most 7 days and 40 per directory. Only names the bridge itself chose are pruned.
 */
import { lstat, writeFile, readdir, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { HttpError } from '../../core/respond.ts'
import { holdDir, NotADirectory, DirMoved, type HeldDir } from '../../lib/open-confined.ts'

export const DROP_DIR = '.herdr-bridge'
export const KEEP_MS = 7 * 24 * 60 * 60 * 1000
export const KEEP_FILES = 40
/** Temp files of an interrupted upload older than this are removed by the next prune. */
const STALE_TEMP_MS = 60 * 60 * 1000

// A text upload keeps its own short extension (`.md`, `.py`), so any short lowercase one is ours.
export const OUR_NAME = /^\d{8}-\d{6}-[0-9a-f]{8}\.[a-z0-9]{1,10}$/
export const TEMP_NAME = /^\.upload-[0-9a-f]{16}\.part$/

export type DropKind = 'images' | 'files'

/**
 * Holds `<cwd>/.herdr-bridge/<kind>` open by descriptor, making what is missing: every later
 * create, rename and unlink goes through the held directory (see lib/open-confined.ts), so a
 * component swapped for a symlink after this cannot redirect them.
 */
export async function ensureDropDir(cwd: string, kind: DropKind): Promise<HeldDir> {
  try {
    const top = await holdDir(cwd, [DROP_DIR], { create: true })
    try {
      await writeFile(top.at('.gitignore'), '*\n', { flag: 'wx', mode: 0o644 }).catch((err) => {
        if (err.code !== 'EEXIST') throw err
      })
    } finally {
      await top.close()
    }
    return await holdDir(cwd, [DROP_DIR, kind], { create: true })
  } catch (err) {
    const shown = err instanceof NotADirectory && err.path.endsWith(DROP_DIR) ? join(cwd, DROP_DIR) : join(cwd, DROP_DIR, kind)
    if (err instanceof NotADirectory || err instanceof DirMoved) throw new HttpError(500, `drop directory ${shown} is not writable: it is a symlink or not a directory`)
    throw new HttpError(500, `drop directory ${shown} is not writable: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
}

/** `20260102-030405-<8 hex>.<ext>`, UTC. */
export function dropName(now: number, sha256hex: string, ext: string): string {
  const d = new Date(now).toISOString() // 2026-01-02T03:04:05.678Z
  return `${d.slice(0, 10).replace(/-/g, '')}-${d.slice(11, 19).replace(/:/g, '')}-${sha256hex.slice(0, 8)}.${ext}`
}

/** Drops files older than 7 days, then all but the newest 40. Returns the names removed. */
export async function prune(dir: HeldDir, now: number): Promise<string[]> {
  const names = await readdir(dir.at(''))
  const ours: Array<{ name: string; mtime: number }> = []
  const removed: string[] = []
  for (const name of names) {
    const ourFile = OUR_NAME.test(name)
    if (!ourFile && !TEMP_NAME.test(name)) continue
    const st = await lstat(dir.at(name)).catch(() => null)
    if (!st || !st.isFile()) continue
    if (!ourFile) {
      if (now - st.mtimeMs > STALE_TEMP_MS)
        await unlink(dir.at(name)).then(
          () => removed.push(name),
          () => {},
        )
      continue
    }
    ours.push({ name, mtime: st.mtimeMs })
  }
  // Newest first; the name (which starts with the time) breaks ties.
  ours.sort((a, b) => b.mtime - a.mtime || (a.name < b.name ? 1 : -1))
  ours.forEach((f, i) => {
    if (i >= KEEP_FILES || now - f.mtime > KEEP_MS) removed.push(f.name)
  })
  await Promise.all(removed.filter((n) => OUR_NAME.test(n)).map((n) => unlink(dir.at(n)).catch(() => {})))
  return removed
}
