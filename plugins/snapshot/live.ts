/**
 * The live snapshot: every session's workspaces, tabs, panes and agents kept in memory, fed by
 * the bus events the ingest publishes, so `/snapshot` and the `/events` snapshot frame answer
 * without a herdr round trip.
 *
 * Status changes (the hot path) are applied in place. Any other multiplexer event of a session,
 * and its (re)connect, resync or disconnect, marks that session stale: the next read waits for a
 * fresh `session.snapshot`. Because bus subscribers run in publish order and this one applies
 * synchronously, a read that starts after an event with seq S reflects S. A background
 * reconcile every `reconcileMs` (while someone reads) catches what no event announced. A session
 * whose ingest is not connected is always read fresh.
 *
 * Reads that nothing changed since cost a buffer: the merged, enriched snapshot and its JSON body
 * (and compressed forms) are kept per revision, and the revision moves with every change the
 * model applies. Each agent's enrichment (branch, `last_activity_ts`, subagents) is kept by the
 * agent fields it is read from; a new or changed agent is enriched before the read answers, and
 * all of them are read again in the background every `enrichMs / 2` (a read waits once they are
 * `enrichMs` old), so a checkout or a transcript write shows within `enrichMs`.
 */
import type { PluginContext } from '../../core/plugin.ts'
import type { BusEvent } from '../../core/bus.ts'
import type { LiveSnapshot, SnapshotBody } from '../../core/services.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { encodeBody, type Encoding } from '../../lib/http/compress.ts'
import { applyEnrichment, enrichmentOf, isRecord, mergeSnapshots, rankAgents, sessionSnapshot, type Enrichment, type RankedAgent, type Snapshot } from './model.ts'

export type { LiveSnapshot, SnapshotBody }

export interface LiveSnapshotOptions {
  /** Longest time a change herdr made without an event stays unseen; default 5 s. */
  reconcileMs?: number
  /** Longest time a branch or transcript change stays unseen; default 1 s. */
  enrichMs?: number
}

type Ctx = Pick<PluginContext, 'herdr' | 'agentKinds' | 'bus' | 'now'> & { home?: string; env?: NodeJS.ProcessEnv }

const ARRAYS = ['agents', 'panes', 'tabs', 'workspaces', 'layouts'] as const

interface SessionModel {
  /** One session's snapshot, ids qualified and elements labelled (mergeSnapshots of one part). */
  part: Snapshot | null
  /** Index of qualified pane id → position in part.agents / part.panes. */
  agentAt: Map<string, number>
  paneAt: Map<string, number>
  /** Bumped by every change the model could not apply. */
  gen: number
  /** The gen the held part is complete for. */
  cleanGen: number
  fetchedAt: number
  fetching: Promise<void> | null
  fetchGen: number
  /** Status changes applied while a fetch was in flight; replayed onto its result. */
  journal: Record<string, unknown>[] | null
  maxSeq: number
  /** herdr's last answer as JSON: an identical reconcile keeps the part (and the revision). */
  raw: string
}

/** The agent fields its enrichment is read from: everything but the status herdr moves. */
const enrichKey = (a: Record<string, unknown>): string => {
  const { agent_status: _s, state_change_seq: _q, session: _n, ...rest } = a
  return JSON.stringify(rest)
}

interface Built {
  rev: number
  snapshot: Snapshot
  body?: SnapshotBody
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v)

export function createLiveSnapshot(ctx: Ctx, opts: LiveSnapshotOptions = {}): LiveSnapshot {
  const reconcileMs = opts.reconcileMs ?? 5000
  const enrichMs = opts.enrichMs ?? 1000
  const models = new Map<string, SessionModel>()
  let lastRead = 0
  let stopped = false
  /** Moves with every change a read could see: model, parts taken, enrichment. */
  let rev = 1
  let built: Built | null = null
  /** Enrichment by enrichKey, with the agent it was read for (to read it again). */
  let enriched = new Map<string, { agent: RankedAgent; value: Enrichment }>()
  let checkedAt = 0
  let checking: Promise<void> | null = null

  const model = (s: string): SessionModel => {
    let m = models.get(s)
    if (!m) {
      m = { part: null, agentAt: new Map(), paneAt: new Map(), gen: 1, cleanGen: 0, fetchedAt: 0, fetching: null, fetchGen: 0, journal: null, maxSeq: 0, raw: '' }
      models.set(s, m)
    }
    return m
  }

  /** Sessions whose ingest subscription is up, from its own announcements (no feed, no trust). */
  const connected = new Set<string>()
  const fed = (s: string): boolean => connected.has(s)

  const index = (m: SessionModel) => {
    m.agentAt.clear()
    m.paneAt.clear()
    m.maxSeq = 0
    const agents = m.part?.agents ?? []
    const panes = m.part?.panes ?? []
    agents.forEach((a, i) => {
      if (!isRecord(a)) return
      if (typeof a.pane_id === 'string') m.agentAt.set(a.pane_id, i)
      if (isInt(a.state_change_seq) && a.state_change_seq > m.maxSeq) m.maxSeq = a.state_change_seq
    })
    panes.forEach((p, i) => isRecord(p) && typeof p.pane_id === 'string' && m.paneAt.set(p.pane_id, i))
  }

  /** A status change; false when the model cannot express it (a new agent, say). */
  const applyStatus = (m: SessionModel, p: Record<string, unknown>): boolean => {
    if (!m.part || typeof p.pane_id !== 'string') return false
    const i = m.agentAt.get(p.pane_id)
    if (i === undefined || typeof p.agent_status !== 'string') return false
    // Copy on write: a read in flight keeps the objects it took.
    const agents = m.part.agents
    // Indexed only when it was an object; the part is replaced whole, never edited elsewhere.
    const a = agents[i] as Record<string, unknown>
    if (p.agent && a.agent && p.agent !== a.agent) return false
    if (a.agent_status !== p.agent_status) {
      // herdr stamps each transition with its next global seq; the reconcile brings the real one.
      agents[i] = { ...a, agent_status: p.agent_status, state_change_seq: ++m.maxSeq }
      rev++
      const j = m.paneAt.get(p.pane_id)
      if (j !== undefined) m.part.panes[j] = { ...(m.part.panes[j] as Record<string, unknown>), agent_status: p.agent_status }
    }
    return true
  }

  const stale = (m: SessionModel) => {
    m.gen++
  }

  const refresh = (s: string, m: SessionModel): Promise<void> => {
    if (m.fetching && m.fetchGen === m.gen) return m.fetching
    // Chained after the fetch in flight: that one may predate the change that made this one due.
    const after = m.fetching ? m.fetching.catch(() => {}) : Promise.resolve()
    const run = after.then(async () => {
      const startGen = m.gen
      m.fetchGen = startGen
      m.journal = []
      try {
        const snap = await sessionSnapshot(ctx, s)
        if (models.get(s) !== m) return
        const raw = JSON.stringify(snap)
        // Unchanged since the part was taken (and no status applied since): keep it.
        if (!(m.part && raw === m.raw && !m.journal?.length && m.cleanGen > 0)) {
          m.part = mergeSnapshots([{ session: s, snapshot: snap }])
          m.raw = raw
          index(m)
          rev++
        }
        for (const p of m.journal ?? []) if (!applyStatus(m, p)) stale(m)
        m.cleanGen = startGen
        m.fetchedAt = ctx.now()
      } catch (err) {
        m.part = null
        m.raw = ''
        m.cleanGen = 0
        rev++
        throw err
      } finally {
        m.journal = null
      }
    })
    const settled = run.finally(() => {
      if (m.fetching === settled) m.fetching = null
    })
    m.fetching = settled
    m.fetchGen = m.gen
    return settled
  }

  const fresh = (s: string, m: SessionModel) => !!m.part && m.cleanGen === m.gen && ctx.now() - m.fetchedAt < reconcileMs && fed(s)

  const unsubscribe = ctx.bus.subscribe({
    name: 'live-snapshot',
    limit: Number.MAX_SAFE_INTEGER,
    deliver(ev: BusEvent) {
      const payload: unknown = ev.payload
      if (!isRecord(payload)) return
      const s = payload.session
      if (typeof s !== 'string') return
      if (ev.type === 'multiplexer_connected') connected.add(s)
      else if (ev.type === 'multiplexer_disconnected') connected.delete(s)
      const m = models.get(s)
      if (!m) return
      if (ev.source === 'multiplexer' && ev.type === 'pane_agent_status_changed') {
        m.journal?.push(payload)
        if (!applyStatus(m, payload)) stale(m)
        return
      }
      // Everything else that comes from herdr, and the connection's own turns, may change the
      // layout in ways only a fresh snapshot tells.
      if (ev.source === 'multiplexer' || ev.type.startsWith('multiplexer_')) stale(m)
    },
  })

  // Bounded staleness for changes no event announced; idle when nobody reads. Twice per
  // interval, so a model is renewed before reads would have to wait for it.
  const timer = setInterval(() => {
    if (stopped || ctx.now() - lastRead > 3 * reconcileMs) return
    for (const [s, m] of models) void refresh(s, m).catch(() => {})
  }, reconcileMs / 2)
  timer.unref?.()

  /** Reads every kept enrichment again; a changed one moves the revision. */
  const recheck = (): Promise<void> => {
    checking ??= (async () => {
      const started = ctx.now()
      const entries = [...enriched.entries()]
      const values = await Promise.all(entries.map(([, e]) => enrichmentOf(ctx, e.agent, { home: ctx.home, env: ctx.env })))
      entries.forEach(([k, e], i) => {
        if (JSON.stringify(values[i]) === JSON.stringify(e.value)) return
        if (enriched.get(k) === e) enriched.set(k, { agent: e.agent, value: values[i] })
        rev++
      })
      checkedAt = started
    })().finally(() => (checking = null))
    return checking
  }

  /** The snapshot of the current revision, merged and enriched only when the revision moved. */
  const current = async (): Promise<Built> => {
    lastRead = ctx.now()
    await ctx.herdr.ready?.()
    const sessions = ctx.herdr.sessions()
    for (const s of models.keys())
      if (!sessions.includes(s)) {
        models.delete(s)
        rev++
      }
    const results = await Promise.allSettled(
      sessions.map((s) => {
        const m = model(s)
        return fresh(s, m) ? Promise.resolve(m) : refresh(s, m).then(() => m)
      }),
    )
    const parts: { session: string; part: Snapshot }[] = []
    let firstError: unknown
    results.forEach((r, i) => {
      if (r.status === 'fulfilled' && r.value.part) parts.push({ session: sessions[i], part: r.value.part })
      else if (r.status === 'rejected') firstError ??= r.reason
    })
    if (!parts.length) throw firstError ?? new HerdrError('unreachable', 'no herdr session is reachable')
    const age = ctx.now() - checkedAt
    if (age >= enrichMs) await recheck()
    else if (age >= enrichMs / 2) void recheck().catch(() => {})
    const taken = parts.map((p) => p.session).join('\n')
    if (built && built.rev === rev && built.snapshot.sessions.join('\n') === taken) return built
    const at = rev
    const merged: Record<string, unknown> = {}
    for (const k of ARRAYS) merged[k] = []
    for (const { part } of parts) {
      for (const k in part) {
        if (k === 'sessions') continue
        const v = part[k]
        if ((ARRAYS as readonly string[]).includes(k)) {
          const into = merged[k] as unknown[]
          // Agents get per-read fields; the rest is shared read-only with the model.
          if (k === 'agents') for (const a of v as unknown[]) into.push(a && typeof a === 'object' ? { ...a } : a)
          else for (const el of v as unknown[]) into.push(el)
        } else if (!(k in merged)) merged[k] = v
      }
    }
    merged.sessions = parts.map((p) => p.session)
    const agents = (merged.agents as unknown[]).filter((a): a is RankedAgent => !!a && typeof a === 'object')
    const keys = agents.map(enrichKey)
    const next = new Map<string, { agent: RankedAgent; value: Enrichment }>()
    await Promise.all(
      agents.map(async (a, i) => {
        let e = enriched.get(keys[i]) ?? next.get(keys[i])
        if (!e) {
          const agent = { ...a }
          e = { agent, value: await enrichmentOf(ctx, agent, { home: ctx.home, env: ctx.env }) }
        }
        next.set(keys[i], e)
      }),
    )
    enriched = next
    for (let i = 0; i < agents.length; i++) applyEnrichment(agents[i], next.get(keys[i])!.value)
    merged.agents = rankAgents(agents)
    // A change that landed while enriching is answered by the next read.
    // Same shape as mergeSnapshots: the five arrays, then herdr's scalars, `sessions` last.
    const b: Built = { rev: at, snapshot: merged as Snapshot }
    if (at === rev) built = b
    return b
  }

  return {
    async get() {
      return (await current()).snapshot
    },
    async body() {
      const b = await current()
      if (!b.body) {
        const json = Buffer.from(JSON.stringify({ result: { snapshot: b.snapshot } }))
        const encoded = new Map<Encoding, Buffer>()
        b.body = {
          json,
          encoded(encoding) {
            let out = encoded.get(encoding)
            if (!out) encoded.set(encoding, (out = encodeBody(encoding, json)))
            return out
          },
        }
      }
      return b.body
    },
    stop() {
      stopped = true
      clearInterval(timer)
      unsubscribe()
      models.clear()
    },
  }
}
