/** last_activity_ts: the newest `timestamp` written to a transcript, read from its last 64 KiB only. */
import { open } from 'node:fs/promises'

export const TAIL_BYTES = 64 << 10

const memo = new Map<string, { size: number; mtime: number; value: number | undefined }>()

/** Unix ms of the last parseable RFC 3339 `timestamp`, scanning lines backwards; never the mtime. */
export async function lastTimestamp(path: string): Promise<number | undefined> {
  let fh
  try {
    fh = await open(path, 'r')
  } catch {
    return undefined
  }
  try {
    const st = await fh.stat()
    if (!st.isFile()) return undefined
    const hit = memo.get(path)
    if (hit && hit.size === st.size && hit.mtime === st.mtimeMs) return hit.value
    const start = Math.max(0, st.size - TAIL_BYTES)
    const buf = Buffer.allocUnsafe(st.size - start)
    const { bytesRead } = await fh.read(buf, 0, buf.length, start)
    let lines = buf.toString('utf8', 0, bytesRead).split('\n')
    // The first line is partial unless the window starts at the file's start.
    if (start > 0) lines = lines.slice(1)
    let value: number | undefined
    for (let i = lines.length - 1; i >= 0 && value === undefined; i--) value = timestampOf(lines[i])
    memo.set(path, { size: st.size, mtime: st.mtimeMs, value })
    if (memo.size > 1024) memo.clear()
    return value
  } finally {
    await fh.close()
  }
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
