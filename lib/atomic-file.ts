import { readFileSync, writeFileSync, renameSync, mkdirSync, rmSync, fsyncSync, openSync, closeSync, readdirSync, lstatSync, unlinkSync } from 'node:fs'
import { dirname, basename, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { errField } from './error-fields.ts'

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
  const tmp = tempPathFor(path)
  try {
    io.write(tmp, data, mode)
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}

/**
 * The temp file an atomic write of `path` goes through: beside it, hidden, and named with the
 * writer's process id so that a sweep (TEMP_FILE) can tell when its writer is gone. Every writer
 * of the data dir that writes through a temp file takes its name from here.
 */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`)
}

/** Names `tempPathFor` gives (the writer's pid, then 8 hex); older releases wrote no pid. */
export const TEMP_FILE = /^\..+\.(?:(\d+)-)?[0-9a-f]{8}\.tmp$/

/**
 * Whether the process that named a temp file is gone. This process's own files are its writes
 * in flight, except at start-up, before it wrote anything (a container restarts as pid 1 again).
 * A pid that answers, or that is another user's (EPERM), is a live writer.
 */
function writerGone(pid: number, atStart: boolean): boolean {
  if (pid === process.pid) return atStart
  try {
    process.kill(pid, 0)
    return false
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/**
 * Removes temp files an interrupted atomic write left under `dir` (they may hold bearers and push
 * tokens): at once when the process named in the file is gone, and, for names without a pid
 * (older releases), when older than `olderThanMs`. A write in progress in a live process
 * (`bridge push login`, or this one after start-up) is left alone; symlinks are never followed.
 * `atStart`: nothing of this process is in flight yet. Returns how many were removed.
 */
export function sweepStaleTemps(dir: string, olderThanMs = 60_000, now = Date.now(), depth = 3, atStart = true): number {
  let removed = 0
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return 0
  }
  for (const name of names) {
    const p = join(dir, name)
    let st
    try {
      st = lstatSync(p)
    } catch {
      continue
    }
    const temp = st.isFile() ? TEMP_FILE.exec(name) : null
    if (st.isDirectory() && depth > 0) removed += sweepStaleTemps(p, olderThanMs, now, depth - 1, atStart)
    else if (temp && (temp[1] ? writerGone(Number(temp[1]), atStart) : now - st.mtimeMs > olderThanMs)) {
      try {
        unlinkSync(p)
        removed++
      } catch {
        // gone already, or not ours to remove
      }
    }
  }
  return removed
}

/** Corrupt or unreadable data is an error that names the file; only a missing file is null. */
export class CorruptFileError extends Error {}

export function readJsonFile<T>(path: string, what: string): T | null {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    if (errField(err, 'code') === 'ENOENT') return null
    throw new CorruptFileError(`cannot read ${what} ${path}: ${String(errField(err, 'message') ?? err)}`)
  }
  try {
    return JSON.parse(text) as T
  } catch (err) {
    throw new CorruptFileError(`${what} ${path} is not valid JSON (${String(errField(err, 'message'))}); fix or move it away, it was left untouched`)
  }
}
