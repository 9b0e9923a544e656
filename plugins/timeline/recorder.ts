/**
 * The activity timeline: agent status spans turned into a bounded ring of entries (at most 1500,
 * none older than 72 h). Pure state; persistence and the bus live in index.ts.
 */

export interface TimelineEntry {
  ts: number
  pane: string
  agent: string
  session: string
  workspace: string
  /** The row's human name, when herdr gave the agent one; clients fall back to the kind name. */
  title?: string
  from?: string
  to: string
  prev_ms?: number
}

interface Span {
  status: string
  /** When the span began; undefined when its start was not seen. */
  since?: number
  agent: string
  session: string
  workspace: string
  title?: string
  /** Last time an event touched the span, so a slower rebuild cannot roll it back. */
  touched: number
}

export const MAX_ENTRIES = 1500
export const MAX_AGE_MS = 72 * 3600 * 1000

export interface AgentRow {
  pane: string
  agent?: string
  agent_status?: string
  workspace?: string
  session: string
  title?: string
}

export interface Recorder {
  /** A `pane_agent_status_changed`; a repeat of the open status is ignored. */
  status(ts: number, ev: { pane: string; status: string; agent?: string; workspace?: string; session?: string }): TimelineEntry | undefined
  /** A close or exit: `gone` only for panes with an open span. */
  gone(ts: number, pane: string): TimelineEntry | undefined
  /**
   * Re-points spans at what herdr reports for `session` now, writing nothing. `startedAt` is when
   * the rows were read: spans touched by an event since then are left alone.
   */
  rebuild(session: string, rows: AgentRow[], startedAt: number): void
  /** Newest first, optionally for one pane. */
  list(limit: number, pane?: string): TimelineEntry[]
  /** Oldest first, as persisted. */
  entries(): TimelineEntry[]
  /** Drops what is over the bounds; true when something was dropped. */
  prune(): boolean
  readonly dirty: boolean
  markClean(): void
}

export function createRecorder(opts: { now: () => number; initial?: unknown; maxEntries?: number; maxAgeMs?: number }): Recorder {
  const maxEntries = opts.maxEntries ?? MAX_ENTRIES
  const maxAgeMs = opts.maxAgeMs ?? MAX_AGE_MS
  let ring: TimelineEntry[] = sanitize(opts.initial)
  const spans = new Map<string, Span>()
  let dirty = false

  const prune = () => {
    const cutoff = opts.now() - maxAgeMs
    const before = ring.length
    let start = 0
    while (start < ring.length && ring[start].ts < cutoff) start++
    if (ring.length - start > maxEntries) start = ring.length - maxEntries
    if (start > 0) ring = ring.slice(start)
    return ring.length !== before
  }
  if (prune()) dirty = true

  const append = (e: TimelineEntry) => {
    ring.push(e)
    prune()
    dirty = true
    return e
  }

  const newest = (pane: string) => {
    for (let i = ring.length - 1; i >= 0; i--) if (ring[i].pane === pane) return ring[i]
    return undefined
  }

  return {
    status(ts, ev) {
      if (!ev.pane || !ev.status) return undefined
      const span = spans.get(ev.pane)
      if (span && span.status === ev.status) {
        span.touched = ts
        return undefined
      }
      const next: Span = {
        status: ev.status,
        since: ts,
        agent: ev.agent || span?.agent || '',
        session: ev.session || span?.session || 'default',
        workspace: ev.workspace || span?.workspace || '',
        title: span?.title,
        touched: ts,
      }
      spans.set(ev.pane, next)
      const entry: TimelineEntry = { ts, pane: ev.pane, agent: next.agent, session: next.session, workspace: next.workspace, to: ev.status }
      if (next.title) entry.title = next.title
      if (span) {
        entry.from = span.status
        if (span.since !== undefined) entry.prev_ms = Math.max(0, ts - span.since)
      }
      return append(entry)
    },
    gone(ts, pane) {
      const span = spans.get(pane)
      if (!span) return undefined
      spans.delete(pane)
      const entry: TimelineEntry = { ts, pane, agent: span.agent, session: span.session, workspace: span.workspace, from: span.status, to: 'gone' }
      if (span.title) entry.title = span.title
      if (span.since !== undefined) entry.prev_ms = Math.max(0, ts - span.since)
      return append(entry)
    },
    rebuild(session, rows, startedAt) {
      const seen = new Set<string>()
      for (const r of rows) {
        if (!r.pane || !r.agent_status) continue
        seen.add(r.pane)
        const span = spans.get(r.pane)
        if (span && span.touched > startedAt) continue
        const base = { agent: r.agent ?? '', session, workspace: r.workspace ?? '', title: r.title || undefined, touched: startedAt }
        if (!span) {
          // Resume from the stored history when it ends in the status that still holds.
          const last = newest(r.pane)
          spans.set(r.pane, { ...base, status: r.agent_status, since: last && last.to === r.agent_status ? last.ts : undefined })
        } else if (span.status !== r.agent_status) {
          spans.set(r.pane, { ...base, status: r.agent_status, since: undefined })
        } else {
          span.title = base.title ?? span.title
          span.agent = base.agent || span.agent
        }
      }
      // Agents that ended while we were not looking: their span is unknown, not a fake `gone`.
      for (const [pane, span] of spans) if (span.session === session && !seen.has(pane) && span.touched <= startedAt) spans.delete(pane)
    },
    list(limit, pane) {
      const out: TimelineEntry[] = []
      for (let i = ring.length - 1; i >= 0 && out.length < limit; i--) if (!pane || ring[i].pane === pane) out.push(ring[i])
      return out
    },
    entries: () => ring,
    prune() {
      const changed = prune()
      if (changed) dirty = true
      return changed
    },
    get dirty() {
      return dirty
    },
    markClean() {
      dirty = false
    },
  }
}

/** A stored file that is not an array of well-formed entries starts the ring empty (or partial). */
function sanitize(raw: unknown): TimelineEntry[] {
  if (!Array.isArray(raw)) return []
  const out: TimelineEntry[] = []
  for (const e of raw) {
    if (!e || typeof e !== 'object') continue
    const x = e as Record<string, unknown>
    if (typeof x.ts !== 'number' || typeof x.pane !== 'string' || typeof x.to !== 'string') continue
    const entry: TimelineEntry = {
      ts: x.ts,
      pane: x.pane,
      agent: typeof x.agent === 'string' ? x.agent : '',
      session: typeof x.session === 'string' ? x.session : 'default',
      workspace: typeof x.workspace === 'string' ? x.workspace : '',
      to: x.to,
    }
    if (typeof x.title === 'string' && x.title) entry.title = x.title
    if (typeof x.from === 'string' && x.from) entry.from = x.from
    if (typeof x.prev_ms === 'number' && x.prev_ms >= 0) entry.prev_ms = x.prev_ms
    out.push(entry)
  }
  return out.sort((a, b) => a.ts - b.ts)
}
