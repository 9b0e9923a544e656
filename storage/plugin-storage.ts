import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { prefixStorage, type Storage } from 'unstorage'

/**
 * Each plugin's own storage: the bridge's storage under `plugins:<plugin name>`, which the
 * data dir holds as `<data dir>/plugins/<plugin name>/` (a key `a.json` is the file
 * `plugins/<name>/a.json`). unstorage's prefixStorage confines every read, write, listing and
 * clear to that prefix, and unstorage refuses `.`/`..` key segments, so a plugin cannot reach
 * another plugin's keys or the core's (devices.json, config.json).
 */
export const PLUGIN_STORAGE_DIR = 'plugins'

/** A plugin name as one path segment: the usual names as they are, anything else encoded. */
export function storageName(plugin: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(plugin) ? plugin : `_${Buffer.from(plugin, 'utf8').toString('hex')}`
}

export function pluginStorage(storage: Storage, plugin: string): Storage {
  return prefixStorage(storage, `${PLUGIN_STORAGE_DIR}:${storageName(plugin)}`)
}

/** Where a plugin's key lives on disk (for messages that name the file). */
export function pluginStoragePath(dataDir: string, plugin: string, key: string): string {
  return join(dataDir, PLUGIN_STORAGE_DIR, storageName(plugin), ...key.split(':'))
}

/**
 * Keys earlier versions kept at the top of the data dir, and the shipped plugin that owns each
 * now. Only these move: anything else at the top is the core's (config.json, devices.json,
 * revoked.jsonl, the audit log) or not ours.
 */
export const LEGACY_PLUGIN_KEYS: Readonly<Record<string, string>> = {
  'webpush-vapid.json': 'notify-webpush',
  'webpush-subscriptions.json': 'notify-webpush',
  'notify-alerted.json': 'push',
  'notify-mutes.json': 'push',
  'notify-quiet.json': 'push',
  'timeline.json': 'timeline',
  'seen.json': 'seen',
}

export interface LayoutMigration {
  /** `<key> → plugins/<plugin>/<key>`, one per file moved now. */
  moved: string[]
  /** Old files left where they were because the new place already had one (a newer copy wins). */
  kept: string[]
}

const exists = (path: string) => {
  try {
    lstatSync(path)
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw err
  }
}

/** Flushes a directory's entries (the renames in it) to disk. */
function syncDir(dir: string): void {
  let fd: number | undefined
  try {
    fd = openSync(dir, 'r')
    fsyncSync(fd)
  } catch {
    // Some filesystems cannot fsync a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * Moves each known old key of the data dir to its plugin's folder, before any plugin reads.
 * Each move is one rename (atomic on one filesystem): interrupted at any point, every file is
 * whole in exactly one of its two places, and the next start finishes the rest. A file already
 * at its new place is never overwritten; the old one then stays and is reported in `kept`.
 * Nothing to move: nothing is touched, so the second start is a no-op.
 */
export function migrateLegacyLayout(dataDir: string): LayoutMigration {
  const moved: string[] = []
  const kept: string[] = []
  const touched = new Set<string>()
  for (const [key, plugin] of Object.entries(LEGACY_PLUGIN_KEYS)) {
    const from = join(dataDir, key)
    if (!exists(from)) continue
    const to = pluginStoragePath(dataDir, plugin, key)
    const dir = join(dataDir, PLUGIN_STORAGE_DIR, storageName(plugin))
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    if (exists(to)) {
      kept.push(key)
      continue
    }
    try {
      renameSync(from, to)
    } catch (err) {
      // Moved meanwhile by another start on the same data dir.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw err
    }
    touched.add(dir)
    moved.push(`${key} → ${PLUGIN_STORAGE_DIR}/${storageName(plugin)}/${key}`)
  }
  for (const dir of touched) syncDir(dir)
  if (touched.size) syncDir(dataDir)
  return { moved, kept }
}
