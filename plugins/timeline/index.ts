import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { payloadText } from '../../core/bus.ts'
import { fail } from '../../core/respond.ts'
import { qualifyId } from '../../core/herdr/ids.ts'
import type { AgentInfo } from '../../core/herdr/index.ts'
import { readJson } from '../../storage/index.ts'
import { createRecorder, type Recorder, type AgentRow } from './recorder.ts'

/**
 * Agent activity history, recorded from the bus.
 *   GET /timeline?limit&pane   device → {entries (newest first), limit}; 400 bad limit; 503 no recorder
 *
 * Options: `enabled` (default true), `flushMs` (persist period when dirty, default 5 s).
 * File: `<data dir>/timeline.json`, oldest first, written atomically (0600).
 */
export interface TimelineOptions {
  enabled?: boolean
  flushMs?: number
}

/** The recorder, absent when turned off (`enabled: false`). */
interface TimelineState {
  rec?: Recorder
  rebuild(session: string): Promise<void>
  flush(): Promise<void>
  timer?: NodeJS.Timeout
}
const route = defineBridgeRoute.with<TimelineState | undefined>()
/** Storage key: `<data dir>/timeline.json`. */
const KEY = 'timeline.json'
const DEFAULT_LIMIT = 100
const MAX_LIMIT = 500

/** `limit`: absent → 100, a positive integer capped at 500, else null (a 400). */
export function parseLimit(raw: unknown): number | null {
  if (raw === undefined) return DEFAULT_LIMIT
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw.trim())) return null
  const n = Number(raw.trim())
  return n > 0 ? Math.min(n, MAX_LIMIT) : null
}

export function rowsOf(session: string, agents: AgentInfo[]): AgentRow[] {
  return agents.map((a) => ({
    pane: qualifyId(session, a.pane_id),
    agent: a.agent,
    agent_status: a.agent_status,
    workspace: qualifyId(session, a.workspace_id),
    session,
    title: (typeof a.name === 'string' && a.name) || undefined,
  }))
}

export default defineBridgePlugin({
  name: 'timeline',
  routes: [
    route({
      method: 'GET',
      path: '/timeline',
      auth: 'device',
      describe: 'Agent status history, newest first (query: limit 1..500, default 100; pane, a session-qualified pane id)',
      response: v.object({
        entries: v.array(
          v.object({
            ts: v.pipe(v.number(), v.integer()),
            pane: v.string(),
            agent: v.string(),
            session: v.string(),
            workspace: v.string(),
            title: v.optional(v.string()),
            from: v.optional(v.string()),
            to: v.string(),
            prev_ms: v.optional(v.pipe(v.number(), v.minValue(0))),
          }),
        ),
        limit: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)),
      }),
      query: v.object({
        limit: v.optional(
          v.pipe(
            v.string(),
            v.check((raw) => parseLimit(raw) !== null, 'limit must be a positive integer'),
            v.transform((raw) => parseLimit(raw)!),
            v.description(`entries to return, 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT}; larger values are capped)`),
          ),
          String(DEFAULT_LIMIT),
        ),
        pane: v.pipe(v.optional(v.string(), ''), v.description('only this pane (session-qualified id)')),
      }),
      handler({ query, state }) {
        const rec = state?.rec
        if (!rec) fail(503, 'timeline recorder not running')
        return { entries: rec.list(query.limit, query.pane || undefined), limit: query.limit }
      },
    }),
  ],
  async setup(ctx, options: TimelineOptions = {}): Promise<TimelineState | undefined> {
    if (options.enabled === false) return undefined
    let initial: unknown = []
    try {
      initial = (await readJson(ctx.storage, KEY, 'timeline')) ?? []
    } catch (err) {
      ctx.log.warn(`${(err as Error).message}; starting an empty timeline`)
    }
    const rec = createRecorder({ now: ctx.now, initial })

    // Writes go through the bridge's storage (atomic, 0600), one at a time.
    let writing: Promise<void> = Promise.resolve()
    const flush = () =>
      (writing = writing.then(async () => {
        rec.prune()
        if (!rec.dirty) return
        try {
          await ctx.storage.setItemRaw(KEY, JSON.stringify(rec.entries()))
          rec.markClean()
        } catch (err) {
          ctx.log.warn(`timeline: cannot write ${KEY} in the data dir: ${(err as Error).message}`)
        }
      }))
    const timer = setInterval(() => void flush(), options.flushMs ?? 5000)
    timer.unref?.()

    const rebuild = async (session: string) => {
      const startedAt = ctx.now()
      try {
        const r = await ctx.herdr.call<{ agents: AgentInfo[] }>(session, 'agent.list', {})
        rec.rebuild(session, rowsOf(session, r.agents ?? []), startedAt)
      } catch {
        // Unreachable now: multiplexer_connected brings us back here.
      }
    }
    for (const s of ctx.herdr.sessions()) void rebuild(s)

    return { rec, rebuild, flush, timer }
  },
  async dispose(state) {
    if (!state) return
    clearInterval(state.timer)
    await state.flush()
  },
  subscribe: [
    {
      limit: 100_000,
      handler(ev, { state }) {
        const rec = state?.rec
        if (!rec) return
        const p = ev.payload
        if (ev.source === 'multiplexer' && ev.type === 'pane_agent_status_changed') {
          // An absent or odd field reads as '' (the recorder ignores an event without pane or status, and keeps the rest it knew).
          const f = (key: string) => payloadText(ev, key, '')
          rec.status(ev.ts, { pane: f('pane_id'), status: f('agent_status'), agent: f('agent'), workspace: f('workspace_id'), session: f('session') })
        } else if (ev.type === 'pane_closed' || (ev.source === 'multiplexer' && ev.type === 'pane_exited')) {
          if (typeof p.pane_id === 'string') rec.gone(ev.ts, p.pane_id)
        } else if (ev.source === 'bridge' && ev.type === 'multiplexer_connected') {
          return state.rebuild(typeof p.session === 'string' ? p.session : 'default')
        }
      },
    },
  ],
})

export type { Recorder }
export { createRecorder } from './recorder.ts'
