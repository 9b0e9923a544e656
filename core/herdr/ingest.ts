/**
 * herdr → bus. One lifecycle subscription per herdr session for the whole process, plus one
 * `pane.agent_status_changed` subscription per agent pane (herdr has no global status event).
 *
 * Replayed history. herdr starts every lifecycle entry of a new subscription at the start of its
 * 512-event ring and paces each entry to one event per 100 ms tick, so the replay of old events
 * can last many seconds and interleaves with live ones; nothing on the wire tells them apart.
 * The ingester therefore:
 *  - seeds from `session.snapshot` right after the ack (statuses, known panes) and announces
 *    nothing for what already holds;
 *  - treats every status-bearing event (the per-pane dotted event, `pane_created`/`pane_updated`
 *    with an agent, `pane_agent_detected`) only as a hint and publishes what `pane.get` says now,
 *    de-duplicated against the last published status. A stale replayed status can never be
 *    announced, and per pane the announced statuses follow herdr's real order.
 *  - drops the other lifecycle events until the stream has been quiet for `settleMs` (the replay
 *    arrives every tick without a pause) or `settleMaxMs` passed, then publishes
 *    `multiplexer_resync` so clients re-snapshot past anything live that was dropped with the
 *    history. Statuses keep flowing during that window.
 * Panes that vanish without an event (tab/workspace close, exit on older builds) are found by a
 * reconcile against the snapshot and reported as `pane_closed` with `inferred: true`.
 */
import type { ConsolaInstance } from 'consola'
import type { Bus } from '../bus.ts'
import type { Herdr, Subscription, PaneInfo } from './index.ts'
import { HerdrError } from './socket.ts'
import { qualify, qualifyId } from './ids.ts'
import { createStatusBook, createCoalescer } from './status-dedupe.ts'

/** The global lifecycle kinds of spec 3 §6.1 (`pane.output_changed` deliberately not). */
export const LIFECYCLE_SUBSCRIPTIONS = [
  'workspace.created',
  'workspace.updated',
  'workspace.metadata_updated',
  'workspace.renamed',
  'workspace.moved',
  'workspace.closed',
  'workspace.focused',
  'worktree.created',
  'worktree.opened',
  'worktree.removed',
  'tab.created',
  'tab.closed',
  'tab.renamed',
  'tab.moved',
  'tab.focused',
  'pane.created',
  'pane.closed',
  'pane.updated',
  'pane.focused',
  'pane.moved',
  'pane.exited',
  'pane.agent_detected',
  'layout.updated',
] as const

/** Events after which panes may have gone without a pane event of their own. */
const MAY_DROP_PANES = new Set(['tab_closed', 'workspace_closed', 'worktree_removed', 'layout_updated'])

export interface IngestOptions {
  /** Reconnect and per-pane watcher retry period; the spec says about 2 s. */
  retryMs?: number
  /** Quiet time that ends the replay window after a (re)connect. */
  settleMs?: number
  /** Upper bound of the replay window (512 events at 10 per second is 51 s). */
  settleMaxMs?: number
  /** Periodic reconcile against the snapshot (missed statuses, vanished panes). */
  probeMs?: number
}

export interface IngestDeps {
  herdr: Herdr
  bus: Bus
  log: ConsolaInstance
}

export type SessionState = 'connecting' | 'connected' | 'disconnected'

export interface Ingest {
  /** Per session: whether the lifecycle subscription is up. */
  state(): Record<string, SessionState>
  /** Resolves when every session is connected and past its replay window (tests, bench). */
  settled(): Promise<void>
  stop(): Promise<void>
}

export function startIngest(deps: IngestDeps, opts: IngestOptions = {}): Ingest {
  const sessions = new Map<string, SessionIngester>()
  // Sessions that were connected once and then dropped from the scan: when one comes back its
  // clients still hold its old panes, so its return is a reconnect (resync), not a first connect.
  const returning = new Set<string>()
  const add = (s: string) => {
    if (!sessions.has(s)) sessions.set(s, createSessionIngester(s, deps, opts, returning.has(s)))
  }
  for (const s of deps.herdr.sessions()) add(s)
  const off = deps.herdr.onSessionsChanged((added, removed) => {
    for (const s of added) add(s)
    for (const s of removed) {
      const i = sessions.get(s)
      if (i?.everConnected()) returning.add(s)
      // Its socket is gone from the scan while our subscription still ran: say so, or clients
      // would keep a session that no longer reports anything.
      if (i?.state() === 'connected') deps.bus.publish('bridge', 'multiplexer_disconnected', { reason: 'session no longer listed', session: s })
      i?.stop()
      sessions.delete(s)
    }
  })
  return {
    state: () => Object.fromEntries([...sessions].map(([s, i]) => [s, i.state()])),
    settled: () => Promise.all([...sessions.values()].map((i) => i.settled())).then(() => {}),
    async stop() {
      off()
      for (const i of sessions.values()) i.stop()
      sessions.clear()
    },
  }
}

interface SessionIngester {
  state(): SessionState
  everConnected(): boolean
  settled(): Promise<void>
  stop(): void
}

function createSessionIngester(session: string, deps: IngestDeps, opts: IngestOptions, returning = false): SessionIngester {
  const { herdr, bus, log } = deps
  const retryMs = opts.retryMs ?? 2000
  const settleMs = opts.settleMs ?? 500
  const settleMaxMs = opts.settleMaxMs ?? 60_000
  const probeMs = opts.probeMs ?? 30_000

  const book = createStatusBook()
  /** Panes known to exist: pane id → workspace id (bare ids). */
  const known = new Map<string, string>()
  const watchers = new Map<string, Subscription>()
  const watcherRetry = new Map<string, NodeJS.Timeout>()
  let main: Subscription | null = null
  let gen = 0
  let state: SessionState = 'connecting'
  let seeded = false
  let everConnected = returning
  /** Whether clients ever saw this session connected (its panes may sit in their state). */
  let connectedOnce = returning
  let downAnnounced = false
  let stopped = false
  let settling = false
  let dropped = 0
  let quietTimer: NodeJS.Timeout | undefined
  let maxTimer: NodeJS.Timeout | undefined
  let retryTimer: NodeJS.Timeout | undefined
  let probeTimer: NodeJS.Timeout | undefined
  const settledWaiters: (() => void)[] = []
  let lastWarn = ''

  const q = (id: string) => qualifyId(session, id)
  const publish = (type: string, payload: object) => bus.publish('multiplexer', type, { ...payload, session })

  const announce = (pane: string, rec: { status: string; agent: string; workspace: string }) =>
    publish('pane_agent_status_changed', { pane_id: q(pane), workspace_id: q(rec.workspace), agent: rec.agent, agent_status: rec.status })

  /** Forgets a pane's status and stops its watcher. */
  const forget = (pane: string) => {
    book.forget(pane)
    stopWatcher(pane)
  }

  // --- status: every hint is checked against pane.get ------------------------------------------

  const verifier = createCoalescer(async (pane) => {
    const g = gen
    let info: PaneInfo | null
    try {
      info = (await herdr.call<{ pane: PaneInfo }>(session, 'pane.get', { pane_id: pane })).pane
    } catch (err) {
      if (!(err instanceof HerdrError) || !err.notFound) return // transport trouble: the reconnect path resyncs
      info = null
    }
    if (g !== gen || stopped) return
    if (!info) {
      if (book.has(pane) || known.has(pane)) reportGone(pane, known.get(pane) ?? book.get(pane)?.workspace ?? '')
      return
    }
    known.set(pane, info.workspace_id)
    if (!info.agent) {
      // The agent left; a release event announces its final status separately.
      if (book.has(pane)) forget(pane)
      return
    }
    ensureWatcher(pane)
    const rec = book.commit(pane, info.agent_status, info.agent, info.workspace_id)
    if (rec) announce(pane, rec)
  })

  /** A status-bearing event: worth a check unless it repeats what is published and watched. */
  const hint = (pane: unknown, status: unknown) => {
    if (typeof pane !== 'string' || !pane) return
    if (!verifier.busy(pane) && watchers.has(pane) && book.get(pane)?.status === status) return
    void verifier.request(pane)
  }

  /** `pane_agent_detected {released:true, final_status}`: the agent ended. */
  const released = async (data: any) => {
    const pane = data.pane_id
    const prev = typeof pane === 'string' ? book.get(pane) : undefined
    if (!prev) return // not an agent we announced: history, or already handled
    const g = gen
    let info: PaneInfo | null = null
    try {
      info = (await herdr.call<{ pane: PaneInfo }>(session, 'pane.get', { pane_id: pane })).pane
    } catch (err) {
      if (!(err instanceof HerdrError) || !err.notFound) return
    }
    if (g !== gen || stopped || !book.has(pane)) return
    if (info?.agent && info.agent === prev.agent) return // still there: a replayed release
    const rec = book.commit(pane, typeof data.final_status === 'string' ? data.final_status : undefined, data.agent || prev.agent, data.workspace_id)
    if (rec) announce(pane, rec)
    if (info?.agent) void verifier.request(pane)
    else forget(pane)
  }

  // --- per-pane status watchers ------------------------------------------------------------------

  const ensureWatcher = (pane: string) => {
    if (watchers.has(pane) || watcherRetry.has(pane) || !seeded || stopped) return
    const g = gen
    const sub = herdr.subscribe(session, [{ type: 'pane.agent_status_changed', pane_id: pane }], {
      // A transition between the seed and this ack would otherwise go unseen.
      onAck: () => void verifier.request(pane),
      onEvent: (name, data) => {
        if (name === 'pane.agent_status_changed') hint(pane, data?.agent_status)
      },
      onClose: () => {
        if (watchers.get(pane) !== sub) return
        watchers.delete(pane)
        if (g !== gen || stopped || !book.has(pane)) return
        // Retry after a pause; the check stops for good when the pane or its agent is gone.
        watcherRetry.set(
          pane,
          setTimeout(() => {
            watcherRetry.delete(pane)
            if (g === gen && !stopped) void verifier.request(pane)
          }, retryMs),
        )
      },
    })
    watchers.set(pane, sub)
  }

  const stopWatcher = (pane: string) => {
    const w = watchers.get(pane)
    watchers.delete(pane)
    w?.close()
    const t = watcherRetry.get(pane)
    if (t) clearTimeout(t)
    watcherRetry.delete(pane)
  }

  // --- panes that vanish without an event -------------------------------------------------------

  const reportGone = (pane: string, workspace: string) => {
    known.delete(pane)
    forget(pane)
    publish('pane_closed', { type: 'pane_closed', pane_id: q(pane), workspace_id: q(workspace), inferred: true })
  }

  let reconciling: Promise<void> | null = null
  let reconcileAgain = false
  const reconcile = (): Promise<void> => {
    if (reconciling) {
      reconcileAgain = true
      return reconciling
    }
    reconciling = (async () => {
      try {
        do {
          reconcileAgain = false
          const g = gen
          let snap: any
          try {
            snap = (await herdr.call<{ snapshot: any }>(session, 'session.snapshot', {})).snapshot
          } catch {
            return
          }
          if (g !== gen || stopped || !seeded) return
          applySnapshot(snap, false)
        } while (reconcileAgain)
      } finally {
        reconciling = null
      }
    })()
    return reconciling
  }

  /** Brings the known panes and statuses in line with a snapshot; `seed` announces nothing. */
  const applySnapshot = (snap: any, seed: boolean) => {
    const panes: PaneInfo[] = Array.isArray(snap?.panes) ? snap.panes : []
    const agents: any[] = Array.isArray(snap?.agents) ? snap.agents : []
    const now = new Map(panes.map((p) => [p.pane_id, p.workspace_id]))
    if (seed) {
      known.clear()
      for (const [p, w] of now) known.set(p, w)
      book.seed(agents)
    } else {
      for (const [p, w] of [...known]) if (!now.has(p)) reportGone(p, w)
      for (const [p, w] of now) known.set(p, w)
      const withAgent = new Set(agents.map((a) => a.pane_id))
      for (const p of book.panes()) if (!withAgent.has(p) && now.has(p)) forget(p)
      for (const a of agents) {
        const rec = book.commit(a.pane_id, a.agent_status, a.agent, a.workspace_id)
        if (rec) announce(a.pane_id, rec)
      }
    }
    for (const a of agents) if (a.pane_id) ensureWatcher(a.pane_id)
  }

  // --- the lifecycle subscription ---------------------------------------------------------------

  const onEvent = (name: string, data: any) => {
    if (!seeded || stopped) return
    if (settling) {
      clearTimeout(quietTimer)
      quietTimer = setTimeout(endSettle, settleMs)
    }
    if (name === 'pane_output_changed' || name.includes('.')) return
    switch (name) {
      case 'pane_created':
      case 'pane_updated':
        if (data?.pane?.agent) hint(data.pane.pane_id, data.pane.agent_status)
        if (!settling && data?.pane?.pane_id) known.set(data.pane.pane_id, data.pane.workspace_id)
        break
      case 'pane_agent_detected':
        if (data?.released) void released(data)
        else hint(data?.pane_id, data?.final_status)
        break
      case 'pane_closed':
      case 'pane_exited':
        // Live, the event is the truth; inside the replay window it may be history.
        if (!settling) {
          known.delete(data?.pane_id)
          forget(data?.pane_id)
        } else if (typeof data?.pane_id === 'string' && known.has(data.pane_id)) void verifier.request(data.pane_id)
        break
      case 'pane_moved':
        if (!settling && data?.previous_pane_id && data?.pane?.pane_id) {
          known.delete(data.previous_pane_id)
          known.set(data.pane.pane_id, data.pane.workspace_id)
          book.rename(data.previous_pane_id, data.pane.pane_id)
          stopWatcher(data.previous_pane_id)
          if (book.has(data.pane.pane_id)) ensureWatcher(data.pane.pane_id)
        }
        break
    }
    if (settling) {
      dropped++
      return
    }
    bus.publish('multiplexer', name, { ...qualify(session, data ?? {}), session })
    if (MAY_DROP_PANES.has(name)) void reconcile()
  }

  const endSettle = () => {
    if (!settling) return
    settling = false
    clearTimeout(quietTimer)
    clearTimeout(maxTimer)
    const reconnected = everConnected
    everConnected = true
    // Clients re-snapshot past whatever the window dropped (history, and any live event in it).
    if (reconnected || dropped > 0) bus.publish('bridge', 'multiplexer_resync', { reason: reconnected ? 'multiplexer reconnected' : 'multiplexer history skipped', session })
    void reconcile()
    for (const w of settledWaiters.splice(0)) w()
  }

  const connect = () => {
    if (stopped) return
    const g = ++gen
    state = 'connecting'
    const sub = herdr.subscribe(
      session,
      LIFECYCLE_SUBSCRIPTIONS.map((type) => ({ type })),
      {
        onAck: () => void seed(g, sub),
        onEvent,
        onClose: (reason) => onClose(g, reason),
      },
    )
    main = sub
  }

  const seed = async (g: number, sub: Subscription) => {
    let snap: any
    try {
      snap = (await herdr.call<{ snapshot: any }>(session, 'session.snapshot', {})).snapshot
    } catch (err) {
      if (g === gen) sub.close()
      return
    }
    if (g !== gen || stopped) return
    applySnapshot(snap, true)
    seeded = true
    for (const a of book.panes()) ensureWatcher(a)
    state = 'connected'
    connectedOnce = true
    downAnnounced = false
    lastWarn = ''
    dropped = 0
    settling = true
    quietTimer = setTimeout(endSettle, settleMs)
    maxTimer = setTimeout(endSettle, settleMaxMs)
    bus.publish('bridge', 'multiplexer_connected', { socket: herdr.socketPath(session), session })
    log.debug(`herdr session ${session}: subscribed`)
    clearInterval(probeTimer)
    probeTimer = setInterval(() => void reconcile(), probeMs)
    probeTimer.unref?.()
  }

  const onClose = (g: number, reason: string) => {
    if (g !== gen || stopped) return
    gen++
    const wasConnected = state === 'connected'
    teardown()
    state = 'disconnected'
    if (wasConnected || !downAnnounced) {
      downAnnounced = true
      bus.publish('bridge', 'multiplexer_disconnected', { reason, session })
    }
    if (reason !== lastWarn) {
      lastWarn = reason
      if (wasConnected || everConnected) log.warn(`herdr session ${session}: ${reason}; retrying every ${retryMs / 1000} s`)
      else log.debug(`herdr session ${session}: ${reason}`)
    }
    retryTimer = setTimeout(connect, retryMs)
    retryTimer.unref?.()
  }

  const teardown = () => {
    seeded = false
    if (settling) {
      settling = false
      // A connection that ends inside its replay window still owes clients a resync later.
      if (dropped > 0) everConnected = true
    }
    clearTimeout(quietTimer)
    clearTimeout(maxTimer)
    clearInterval(probeTimer)
    for (const p of [...watchers.keys(), ...watcherRetry.keys()]) stopWatcher(p)
    const m = main
    main = null
    m?.close()
  }

  connect()

  return {
    state: () => state,
    everConnected: () => connectedOnce,
    settled: () => (state === 'connected' && !settling ? Promise.resolve() : new Promise<void>((r) => settledWaiters.push(r))),
    stop() {
      if (stopped) return
      gen++
      teardown()
      stopped = true
      clearTimeout(retryTimer)
      for (const w of settledWaiters.splice(0)) w()
    },
  }
}
