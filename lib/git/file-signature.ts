/**
 * Cheap change detection for answers git derived from files: a stat of each path (inode, size,
 * mtime, ctime; '-' when absent) instead of running git again.
 *
 *   signature(paths) → {sig, parts, newestMs}
 *
 * Files git rewrites (config, packed-refs, a worktree's .git file) are replaced by rename, so a
 * change shows as a new inode even inside one clock tick. Directory mtimes are only as fine as
 * the kernel's clock tick, hence RACY_MS: an answer read within that long of the newest time in
 * its signature is not kept, because a second write in the same tick would not show.
 */
import { stat } from 'node:fs/promises'

export const RACY_MS = 50

/** How often each cache answered without running git (tests check a cache really served). */
export const cacheHits = { layout: 0, refs: 0, counts: 0 }
/** Bound of each git answer cache (layout, refs, counts). */
export const MAX_ENTRIES = 256

/** Inode, size, mtime and ctime of each path ('-' when absent), and the newest time seen. */
export async function signature(paths: string[]): Promise<{ sig: string; parts: string[]; newestMs: number }> {
  let newestMs = 0
  const parts = await Promise.all(
    paths.map(async (p) => {
      const s = await stat(p, { bigint: true }).catch(() => null)
      if (!s) return '-'
      const m = Number(s.mtimeNs / 1_000_000n)
      const c = Number(s.ctimeNs / 1_000_000n)
      newestMs = Math.max(newestMs, m, c)
      return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
    }),
  )
  return { sig: parts.join('|'), parts, newestMs }
}
