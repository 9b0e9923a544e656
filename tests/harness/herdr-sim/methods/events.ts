// events.subscribe and events.wait, paced like herdr's subscription thread: wake every 100 ms,
// visit entries in array order, each entry yields at most one event per wake (protocol doc 10.2).
import { effectiveStatus, statusSnapshot } from '../agents.ts'
import { ApiError } from '../errors.ts'
import { PROFILE } from '../mode.ts'
import { lifecycleEventName, PER_PANE_TYPES, type EventEnvelope } from '../events.ts'
import { scrollInfo } from '../info.ts'
import { findPane } from '../resolve.ts'
import type { Pane, SessionState } from '../state.ts'
import type { ReadSource } from '../terminal.ts'
import { lineMatcher, readResult } from './pane.ts'
import { STREAMING, type MethodContext, type MethodTable } from './types.ts'

const TICK_MS = 100

interface Entry {
  /** Returns the line to push this tick, if any. */
  poll(): Promise<unknown | undefined> | unknown | undefined
}

function lifecycleEntry(s: SessionState, type: string): Entry {
  const name = lifecycleEventName(type)
  // herdr 0.8: lifecycle entries start at sequence 0, so a new subscriber replays what the ring
  // still holds. herdr 0.9 (#1270): they start at the head, live events only.
  let cursor = PROFILE.liveOnlySubscriptions ? s.hub.head : 0
  return {
    poll() {
      const hit = s.hub.nextMatching(cursor, (e) => e.event === name)
      if (!hit) return undefined
      cursor = hit.seq + 1
      return hit.envelope
    },
  }
}

function dotted(data: Record<string, unknown>): unknown {
  const { type: _type, ...rest } = data
  return { event: 'pane.agent_status_changed', data: rest }
}

function statusEntry(s: SessionState, pane: Pane, filter: string | undefined, immediate: unknown[]): Entry {
  // Per-pane entries start "now"; they also poll the pane to catch done→idle seen flips,
  // which herdr never publishes on the hub.
  let cursor = s.hub.head
  const current = statusSnapshot(pane)
  let last = JSON.stringify(current)
  if (filter && current.agent_status === filter) immediate.push({ event: 'pane.agent_status_changed', data: current })
  const accepts = (e: EventEnvelope): boolean => e.event === 'pane_agent_status_changed' && e.data.pane_id === pane.id && (!filter || e.data.agent_status === filter)
  return {
    poll() {
      if (pane.removed) return undefined
      const hit = s.hub.nextMatching(cursor, accepts)
      if (hit) {
        cursor = hit.seq + 1
        const line = dotted(hit.envelope.data)
        last = JSON.stringify((line as { data: unknown }).data)
        return line
      }
      cursor = s.hub.head
      const now = statusSnapshot(pane)
      const key = JSON.stringify(now)
      if (key === last) return undefined
      last = key
      if (filter && now.agent_status !== filter) return undefined
      return { event: 'pane.agent_status_changed', data: now }
    },
  }
}

function outputEntry(pane: Pane, entry: { source: ReadSource; match: { type: 'substring' | 'regex'; value: string }; lines?: number | null }): Entry {
  const test = lineMatcher(entry.match)
  const source: ReadSource = entry.source === 'recent' ? 'recent_unwrapped' : entry.source
  let wasMatching = false
  return {
    async poll() {
      if (pane.removed) return undefined
      const read = await readResult(pane, source, 'text', entry.lines)
      const line = String(read.text)
        .split('\n')
        .find((l) => test(l))
      const matching = line !== undefined
      // Rising edge only: fire when the text starts matching, again only after a miss.
      const fire = matching && !wasMatching
      wasMatching = matching
      return fire ? { event: 'pane.output_matched', data: { pane_id: pane.id, matched_line: line, read } } : undefined
    },
  }
}

function scrollEntry(pane: Pane): Entry {
  let last = JSON.stringify(scrollInfo(pane) ?? null)
  return {
    poll() {
      if (pane.removed) return undefined
      const now = scrollInfo(pane)
      if (!now) return undefined
      const key = JSON.stringify(now)
      if (key === last) return undefined
      last = key
      return { event: 'pane.scroll_changed', data: { pane_id: pane.id, workspace_id: pane.ws.id, scroll: now } }
    },
  }
}

function runEntries(ctx: MethodContext, entries: Entry[], immediate: unknown[]): void {
  const { conn } = ctx
  conn.send({ id: ctx.id, result: { type: 'subscription_started' } })
  for (const line of immediate) conn.send(line)
  let busy = false
  const timer = setInterval(async () => {
    if (busy || conn.gone) return
    busy = true
    try {
      for (const e of entries) {
        if (conn.gone) break
        const line = await e.poll()
        if (line !== undefined) conn.send(line)
      }
    } finally {
      busy = false
    }
  }, TICK_MS)
  conn.onGone(() => clearInterval(timer))
}

export const eventMethods: MethodTable = {
  'events.subscribe': (p, ctx) => {
    const { s } = ctx
    const immediate: unknown[] = []
    const entries: Entry[] = []
    // Schema-checked: the per-pane types (the only ones whose pane_id is read) carry one.
    const subs = p.subscriptions as Array<{ type: string; pane_id: string; agent_status?: string | null }>
    subs.forEach((sub, i) => {
      if (!PER_PANE_TYPES.has(sub.type)) {
        entries.push(lifecycleEntry(s, sub.type))
        return
      }
      const pane = findPane(s, sub.pane_id)
      if (!pane) throw new ApiError('pane_not_found', `pane ${sub.pane_id} not found`, `${ctx.id}:sub:${i}:probe`)
      if (sub.type === 'pane.agent_status_changed') entries.push(statusEntry(s, pane, sub.agent_status ?? undefined, immediate))
      else if (sub.type === 'pane.output_matched') entries.push(outputEntry(pane, sub as never))
      else entries.push(scrollEntry(pane))
    })
    runEntries(ctx, entries, immediate)
    return STREAMING
  },

  'events.wait': (p, ctx) => {
    const { s, conn } = ctx
    const match = p.match_event as { event: string; pane_id?: string; agent_status?: string }
    if (match.event !== 'pane_agent_status_changed') {
      throw new ApiError('unsupported_event_wait_match', `events.wait does not support ${match.event}`)
    }
    const pane = findPane(s, match.pane_id ?? '')
    if (!pane) throw new ApiError('pane_not_found', `pane ${match.pane_id} not found`, `${ctx.id}:sub:0:probe`)
    const envelope = (): unknown => ({ event: 'pane_agent_status_changed', data: { type: 'pane_agent_status_changed', ...statusSnapshot(pane) } })
    if (effectiveStatus(pane) === match.agent_status) return { type: 'wait_matched', event: envelope() }
    const deadline = p.timeout_ms != null ? Date.now() + p.timeout_ms : Infinity
    const timer = setInterval(() => {
      if (conn.gone) return void clearInterval(timer)
      if (!pane.removed && effectiveStatus(pane) === match.agent_status) {
        clearInterval(timer)
        conn.reply({ id: ctx.id, result: { type: 'wait_matched', event: envelope() } })
      } else if (Date.now() >= deadline) {
        clearInterval(timer)
        conn.reply({ id: ctx.id, error: { code: 'timeout', message: 'timed out waiting for event' } })
      }
    }, TICK_MS)
    conn.onGone(() => clearInterval(timer))
    return STREAMING
  },
}
