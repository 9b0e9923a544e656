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
import type { Herdr, Subscription } from './index.ts'
import { qualify } from './ids.ts'
import { createSessionPanes, type SessionLink } from './ingest-panes.ts'
import { createReconciler } from './ingest-reconcile.ts'
import { createReplayWindow } from './ingest-replay.ts'

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
  const probeMs = opts.probeMs ?? 30_000
  const link: SessionLink = { session, herdr, gen: 0, stopped: false, seeded: false, publish: (type, payload) => bus.publish('multiplexer', type, { ...payload, session }) }
  const panes = createSessionPanes(link, retryMs)
  const { reconcile, apply, snapshot } = createReconciler(link, panes)
  const replay = createReplayWindow({ settleMs: opts.settleMs ?? 500, settleMaxMs: opts.settleMaxMs ?? 60_000, onEnd: (dropped) => endReplay(dropped) })

  let main: Subscription | null = null
  let state: SessionState = 'connecting'
  let everConnected = returning
  /** Whether clients ever saw this session connected (its panes may sit in their state). */
  let connectedOnce = returning
  let downAnnounced = false
  let retryTimer: NodeJS.Timeout | undefined
  let probeTimer: NodeJS.Timeout | undefined
  const settledWaiters: (() => void)[] = []
  let lastWarn = ''

  const onEvent = (name: string, data: any) => {
    if (!link.seeded || link.stopped) return
    replay.touch()
    if (name === 'pane_output_changed' || name.includes('.')) return
    panes.track(name, data, replay.open)
    if (replay.open) return replay.drop()
    bus.publish('multiplexer', name, { ...qualify(session, data ?? {}), session })
    if (MAY_DROP_PANES.has(name)) void reconcile()
  }

  const endReplay = (dropped: number) => {
    const reconnected = everConnected
    everConnected = true
    // Clients re-snapshot past whatever the window dropped (history, and any live event in it).
    if (reconnected || dropped > 0) bus.publish('bridge', 'multiplexer_resync', { reason: reconnected ? 'multiplexer reconnected' : 'multiplexer history skipped', session })
    void reconcile()
    for (const w of settledWaiters.splice(0)) w()
  }

  const connect = () => {
    if (link.stopped) return
    const g = ++link.gen
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
    const snap = await snapshot()
    if (snap === undefined) {
      if (g === link.gen) sub.close()
      return
    }
    if (g !== link.gen || link.stopped) return
    apply(snap, true)
    link.seeded = true
    for (const a of panes.book.panes()) panes.ensureWatcher(a)
    state = 'connected'
    connectedOnce = true
    downAnnounced = false
    lastWarn = ''
    replay.start()
    bus.publish('bridge', 'multiplexer_connected', { socket: herdr.socketPath(session), session })
    log.debug(`herdr session ${session}: subscribed`)
    clearInterval(probeTimer)
    probeTimer = setInterval(() => void reconcile(), probeMs)
    probeTimer.unref?.()
  }

  const onClose = (g: number, reason: string) => {
    if (g !== link.gen || link.stopped) return
    link.gen++
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
    link.seeded = false
    // A connection that ends inside its replay window still owes clients a resync later.
    if (replay.abort() > 0) everConnected = true
    clearInterval(probeTimer)
    panes.stopWatchers()
    const m = main
    main = null
    m?.close()
  }

  connect()

  return {
    state: () => state,
    everConnected: () => connectedOnce,
    settled: () => (state === 'connected' && !replay.open ? Promise.resolve() : new Promise<void>((r) => settledWaiters.push(r))),
    stop() {
      if (link.stopped) return
      link.gen++
      teardown()
      link.stopped = true
      clearTimeout(retryTimer)
      for (const w of settledWaiters.splice(0)) w()
    },
  }
}
