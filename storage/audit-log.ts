import { appendFile, rename, stat, rm } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * The audit log: one JSON line per request that changes something on the host, in
 * `<data dir>/audit.log`. Typed text and file contents are never written, only their length.
 *
 * What anyone can make it write is bounded, so nobody can fill memory through it or push a
 * device's actions out of it (docs/security.md, "The audit log"):
 *
 * - Actions (every write by a device or the admin, and every pairing that succeeded) go to
 *   `audit.log`, rotated at 5 MiB keeping three old files: the last 20 MiB of actions are kept
 *   whatever else arrives, because refusals never go there.
 * - Refusals (401, 403 and 429 on write routes, and every failed unauthenticated write such as
 *   a refused pairing) are counted in memory per route, status and caller, and written once a
 *   minute as one line each ("37 refused POST /pair (403) from 192.0.2.7 in the last minute") to
 *   `audit-refused.log`, rotated at 1 MiB keeping one old file. At most 100 callers are
 *   counted apart in a minute; the rest share one "other callers" line.
 * - Lines wait in a buffer of at most 1,000 before one batched append; past it new lines are
 *   counted and the count written once there is room, so the log never falls further behind
 *   than the buffer.
 */
export interface AuditEntry {
  ts: number
  device: string
  route: string
  pane?: string
  method?: string
  status: number
  text_length?: number
  bytes?: number
  /** The caller's address: refusals are counted per address (or per device when known). */
  from?: string
}

const MAX_BYTES = 5 * 1024 * 1024
const KEEP = 3
const REFUSED_MAX_BYTES = 1024 * 1024
const REFUSED_KEEP = 1
export const AUDIT_BUFFER = 1000
export const REFUSAL_WINDOW_MS = 60_000
/** Callers counted apart in one window; the rest share one line. */
export const REFUSAL_CALLERS = 100

/** Whether an entry is a refusal, counted rather than written line by line. */
export function isRefusal(e: Pick<AuditEntry, 'device' | 'status'>): boolean {
  return e.status === 401 || e.status === 403 || e.status === 429 || (e.device === '-' && e.status >= 400)
}

interface Tally {
  route: string
  status: number
  who: string
  count: number
}

export interface AuditLogOptions {
  now?: () => number
}

export function createAuditLog(dataDir: string, onError: (err: unknown) => void, opts: AuditLogOptions = {}) {
  const now = opts.now ?? Date.now
  const path = join(dataDir, 'audit.log')
  const refusedPath = join(dataDir, 'audit-refused.log')
  const pending: { file: string; line: string }[] = []
  let dropped = 0
  let writing: Promise<void> | null = null

  let tallies = new Map<string, Tally>()
  let others: Tally | null = null
  let windowStart = 0
  let windowTimer: NodeJS.Timeout | null = null

  const rotate = async (file: string, max: number, keep: number) => {
    const s = await stat(file).catch(() => null)
    if (!s || s.size < max) return
    await rm(`${file}.${keep}`, { force: true })
    for (let i = keep - 1; i >= 1; i--) await rename(`${file}.${i}`, `${file}.${i + 1}`).catch(() => {})
    await rename(file, `${file}.1`)
  }

  /** One writer at a time drains the buffer in batches, so lines never interleave and rotation never races an append. */
  const drain = async () => {
    while (pending.length) {
      const batch = pending.splice(0, pending.length)
      if (dropped) {
        batch.push({
          file: path,
          line: JSON.stringify({ ts: now(), device: '-', route: 'audit', status: 0, dropped, note: `${dropped} audit lines dropped: the log could not keep up` }),
        })
        dropped = 0
      }
      for (const [file, max, keep] of [
        [path, MAX_BYTES, KEEP],
        [refusedPath, REFUSED_MAX_BYTES, REFUSED_KEEP],
      ] as const) {
        const text = batch
          .filter((b) => b.file === file)
          .map((b) => b.line + '\n')
          .join('')
        if (!text) continue
        try {
          await rotate(file, max, keep)
          await appendFile(file, text, { mode: 0o600 })
        } catch (err) {
          onError(err)
        }
      }
    }
  }
  const write = (file: string, line: string) => {
    if (pending.length >= AUDIT_BUFFER) dropped++
    else pending.push({ file, line })
    writing ??= drain().finally(() => (writing = null))
  }

  const closeWindow = () => {
    if (windowTimer) clearTimeout(windowTimer)
    windowTimer = null
    const ts = now()
    const seconds = Math.round((ts - windowStart) / 1000)
    const lines = [...tallies.values(), ...(others ? [others] : [])]
    tallies = new Map()
    others = null
    for (const t of lines) {
      const summary = `${t.count} refused ${t.route} (${t.status}) from ${t.who} in the last ${seconds >= 60 ? 'minute' : `${seconds} s`}`
      write(refusedPath, JSON.stringify({ ts, refused: t.route, status: t.status, from: t.who, count: t.count, window_s: seconds, summary }))
    }
  }

  const refuse = (e: AuditEntry) => {
    if (!windowTimer) {
      windowStart = now()
      windowTimer = setTimeout(closeWindow, REFUSAL_WINDOW_MS)
      windowTimer.unref()
    }
    const who = e.device !== '-' ? `device ${e.device}` : (e.from ?? 'unknown')
    const key = `${e.route}\u0000${e.status}\u0000${who}`
    const t = tallies.get(key)
    if (t) t.count++
    else if (tallies.size < REFUSAL_CALLERS) tallies.set(key, { route: e.route, status: e.status, who, count: 1 })
    else if (others) others.count++
    else others = { route: 'requests', status: e.status, who: 'other callers', count: 1 }
  }

  return {
    path,
    refusedPath,
    record(entry: AuditEntry) {
      if (isRefusal(entry)) return refuse(entry)
      const { from: _from, ...line } = entry
      write(path, JSON.stringify(line))
    },
    /** Writes the refusals counted so far and waits until every buffered line is on disk. */
    async flush() {
      if (windowTimer) closeWindow()
      while (writing) await writing
    },
    /** Lines waiting to be written (tests, `bridge status`). */
    backlog: () => pending.length,
  }
}

export type AuditLog = ReturnType<typeof createAuditLog>
