import { readFileSync, writeFileSync, renameSync, mkdirSync, rmSync, fsyncSync, openSync, closeSync } from 'node:fs'
import { dirname, basename, join } from 'node:path'
import { randomBytes } from 'node:crypto'

/**
 * The file-system calls behind atomic writes. Fault tests swap `write` to simulate a full or
 * read-only disk at the system-call boundary; nothing else should touch this.
 */
export const io = {
  write(path: string, data: string | Uint8Array, mode: number): void {
    writeFileSync(path, data, { mode })
    // Flushed before the rename, so a power cut cannot leave an empty file under the real name.
    const fd = openSync(path, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  },
}

/**
 * Writes through a temp file in the same directory and renames it into place, so a crash
 * leaves either the old file or the new one, never half of each.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    io.write(tmp, data, mode)
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}

/** Corrupt or unreadable data is an error that names the file; only a missing file is null. */
export class CorruptFileError extends Error {}

export function readJsonFile<T>(path: string, what: string): T | null {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err: any) {
    if (err?.code === 'ENOENT') return null
    throw new CorruptFileError(`cannot read ${what} ${path}: ${err?.message ?? err}`)
  }
  try {
    return JSON.parse(text) as T
  } catch (err: any) {
    throw new CorruptFileError(`${what} ${path} is not valid JSON (${err.message}); fix or move it away, it was left untouched`)
  }
}
