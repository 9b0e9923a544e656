/** last_activity_ts: the newest `timestamp` written to a transcript, read from its last 64 KiB only. */
import { open, stat } from 'node:fs/promises'
import { createCache } from '../cache.ts'

export const TAIL_BYTES = 64 << 10

const memo = createCache<string, { size: number; mtime: number; value: number | undefined }>({ max: 1024 })

/** The complete lines of a file's last 64 KiB, or null when it cannot be read. */
export async function readTailLines(path: string, bytes = TAIL_BYTES): Promise<string[] | null> {
  let fh
  try {
    fh = await open(path, 'r')
  } catch {
    return null
  }
  try {
    const st = await fh.stat()
    if (!st.isFile()) return null
    const start = Math.max(0, st.size - bytes)
    const buf = Buffer.allocUnsafe(st.size - start)
    const { bytesRead } = await fh.read(buf, 0, buf.length, start)
    const lines = buf.toString('utf8', 0, bytesRead).split('\n')
    // The first line is partial unless the window starts at the file's start.
    return start > 0 ? lines.slice(1) : lines
  } finally {
    await fh.close()
  }
}

/** Unix ms of the last parseable RFC 3339 `timestamp`, scanning lines backwards; never the mtime. */
export async function lastTimestamp(path: string): Promise<number | undefined> {
  let st
  try {
    st = await stat(path)
  } catch {
    return undefined
  }
  const hit = memo.get(path)
  if (hit && hit.size === st.size && hit.mtime === st.mtimeMs) return hit.value
  const lines = await readTailLines(path)
  if (!lines) return undefined
  let value: number | undefined
  for (let i = lines.length - 1; i >= 0 && value === undefined; i--) value = timestampOf(lines[i])
  memo.set(path, { size: st.size, mtime: st.mtimeMs, value })
  return value
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

export function timestampOf(line: string): number | undefined {
  if (!line.includes('"timestamp"')) return undefined
  try {
    const o = JSON.parse(line)
    const t = o?.timestamp
    if (typeof t !== 'string' || !RFC3339.test(t)) return undefined
    const ms = Date.parse(t)
    return Number.isFinite(ms) && ms > 0 ? ms : undefined
  } catch {
    return undefined
  }
}
