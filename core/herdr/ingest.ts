/**
 * herdr → bus. One lifecycle subscription per herdr session for the whole process, plus one
 * `pane.agent_status_changed` subscription per agent pane (herdr has no global status event).
 *
 * The subscription comes first and the snapshot after its ack (what herdr 0.9 asks of a client);
 * lifecycle events that arrive between the two are held and, once the snapshot says which herdr
 * this is, either published (a live-only server) or counted as history (a replaying one).
 *
 * Live-only servers (herdr 0.9.0 and later, #1270; core/herdr/server-version.ts): a new
 * subscription starts with live events, so there is no replay window and nothing is dropped.
 *
 * Replayed history (herdr 0.8). herdr starts every lifecycle entry of a new subscription at the start of its
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
import { createSessionPanes, type SessionLink, type SessionPanes } from './ingest-panes.ts'
import { createReconciler } from './ingest-reconcile.ts'
import { createReplayWindow } from './ingest-replay.ts'
import { streamsLiveOnly } from './server-version.ts'

/**
 * herdr's session-wide lifecycle events, relayed on /events (docs/api-websockets.md);
 * `pane.output_changed` is deliberately not subscribed: /events never delivers it.
 */
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

/** Most lifecycle events held between the ack and the snapshot; past it, clients get a resync. */
const MAX_EARLY = 1024

/** Events after which panes may have gone without a pane event of their own. */
const MAY_DROP_PANES = new Set(['tab_closed', 'workspace_closed', 'worktree_removed', 'layout_updated'])

export interface IngestOptions {
  /** Reconnect and per-pane watcher retry period (default 2 s, so a herdr restart is noticed within seconds). */
  retryMs?: number
  /** Quiet time that ends the replay window after a (re)connect. */
  settleMs?: number
  /** Upper bound of the replay window (512 events at 10 per second is 51 s). */
  settleMaxMs?: number
  /** Periodic reconcile against the snapshot (missed statuses, vanished panes). */
  probeMs?: number
  /** Agent panes per session with a live status subscription (default: a quarter of the open-file limit). */
  maxWatchers?: number
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

/** One session's ingester across its herdr connections; the functions below share it. */
interface SessionRun {
  link: SessionLink
  deps: IngestDeps
  retryMs: number
  probeMs: number
  panes: SessionPanes
  reconciler: ReturnType<typeof createReconciler>
  replay: ReturnType<typeof createReplayWindow>
  main: Subscription | null
  /** Lifecycle events of the current connection that arrived before its snapshot, in order. */
  early: { name: string; data: unknown }[]
  /** How many did not fit in `early`. */
  earlyLost: number
  state: SessionState
  /** Whether the next connect is a reconnect (clients then get a resync). */
  everConnected: boolean
  /** Whether clients ever saw this session connected (its panes may sit in their state). */
  connectedOnce: boolean
  downAnnounced: boolean
  lastWarn: string
  retryTimer?: NodeJS.Timeout
  probeTimer?: NodeJS.Timeout
  settledWaiters: (() => void)[]
}

function createSessionIngester(session: string, deps: IngestDeps, opts: IngestOptions, returning = false): SessionIngester {
  const link: SessionLink = {
    session,
    herdr: deps.herdr,
    gen: 0,
    stopped: false,
    seeded: false,
    publish: (type, payload) => deps.bus.publish('multiplexer', type, { ...payload, session }),
  }
  const retryMs = opts.retryMs ?? 2000
  const panes = createSessionPanes(link, retryMs, opts.maxWatchers, (line) => deps.log.warn(line))
  const run: SessionRun = {
    link,
    deps,
    retryMs,
    probeMs: opts.probeMs ?? 30_000,
    panes,
    reconciler: createReconciler(link, panes),
    replay: createReplayWindow({ settleMs: opts.settleMs ?? 500, settleMaxMs: opts.settleMaxMs ?? 60_000, onEnd: (dropped) => endReplay(run, dropped) }),
    main: null,
    early: [],
    earlyLost: 0,
    state: 'connecting',
    everConnected: returning,
    connectedOnce: returning,
    downAnnounced: false,
    lastWarn: '',
    settledWaiters: [],
  }
  connect(run)
  return {
    state: () => run.state,
    everConnected: () => run.connectedOnce,
    settled: () => (run.state === 'connected' && !run.replay.open ? Promise.resolve() : new Promise<void>((r) => run.settledWaiters.push(r))),
    stop() {
      if (link.stopped) return
      link.gen++
      teardown(run)
      link.stopped = true
      clearTimeout(run.retryTimer)
      for (const w of run.settledWaiters.splice(0)) w()
    },
  }
}

function connect(run: SessionRun): void {
  const { link } = run
  if (link.stopped) return
  const g = ++link.gen
  run.state = 'connecting'
  const sub = run.deps.herdr.subscribe(
    link.session,
    LIFECYCLE_SUBSCRIPTIONS.map((type) => ({ type })),
    {
      onAck: () => void seed(run, g, sub),
      onEvent: (name, data) => onEvent(run, name, data),
      onClose: (reason) => onClose(run, g, reason),
    },
  )
  run.main = sub
}

/**
 * After the ack: the snapshot seeds statuses and panes (announcing nothing). Then, for a
 * live-only server, the events held since the ack are published; for a replaying one they and
 * what follows until the replay settles are history.
 */
async function seed(run: SessionRun, g: number, sub: Subscription): Promise<void> {
  const { link, deps } = run
  const snap = await run.reconciler.snapshot()
  if (snap === undefined) {
    if (g === link.gen) sub.close()
    return
  }
  if (g !== link.gen || link.stopped) return
  run.reconciler.apply(snap, true)
  link.seeded = true
  for (const a of run.panes.book.panes()) run.panes.ensureWatcher(a)
  run.state = 'connected'
  run.connectedOnce = true
  run.downAnnounced = false
  run.lastWarn = ''
  const early = run.early.splice(0)
  const lost = run.earlyLost
  run.earlyLost = 0
  const live = streamsLiveOnly(snap)
  if (!live) {
    run.replay.start()
    for (let i = 0; i < early.length + lost; i++) run.replay.drop()
  }
  deps.bus.publish('bridge', 'multiplexer_connected', { socket: deps.herdr.socketPath(link.session), session: link.session })
  deps.log.debug(`herdr session ${link.session}: subscribed (${live ? 'live events' : 'replayed history skipped'})`)
  clearInterval(run.probeTimer)
  run.probeTimer = setInterval(() => void run.reconciler.reconcile(), run.probeMs)
  run.probeTimer.unref?.()
  if (live) {
    for (const e of early) relay(run, e.name, e.data)
    endReplay(run, lost)
  }
}

function onEvent(run: SessionRun, name: string, data: unknown): void {
  const { link, replay } = run
  if (link.stopped || name === 'pane_output_changed' || name.includes('.')) return
  if (!link.seeded) {
    // Between the ack and the snapshot: held until the snapshot says what kind of server this is.
    if (run.early.length < MAX_EARLY) run.early.push({ name, data })
    else run.earlyLost++
    return
  }
  replay.touch()
  relay(run, name, data)
}

/** One lifecycle event of a seeded connection: tracked, then published unless the replay window holds it. */
function relay(run: SessionRun, name: string, data: unknown): void {
  const { link, replay } = run
  run.panes.track(name, data, replay.open)
  if (replay.open) return replay.drop()
  run.deps.bus.publish('multiplexer', name, { ...qualify(link.session, (data ?? {}) as object), session: link.session })
  if (MAY_DROP_PANES.has(name)) void run.reconciler.reconcile()
}

function endReplay(run: SessionRun, dropped: number): void {
  const reconnected = run.everConnected
  run.everConnected = true
  // Clients re-snapshot past whatever the window dropped (history, and any live event in it).
  if (reconnected || dropped > 0)
    run.deps.bus.publish('bridge', 'multiplexer_resync', { reason: reconnected ? 'multiplexer reconnected' : 'multiplexer history skipped', session: run.link.session })
  void run.reconciler.reconcile()
  for (const w of run.settledWaiters.splice(0)) w()
}

function onClose(run: SessionRun, g: number, reason: string): void {
  const { link, deps } = run
  if (g !== link.gen || link.stopped) return
  link.gen++
  const wasConnected = run.state === 'connected'
  teardown(run)
  run.state = 'disconnected'
  if (wasConnected || !run.downAnnounced) {
    run.downAnnounced = true
    deps.bus.publish('bridge', 'multiplexer_disconnected', { reason, session: link.session })
  }
  if (reason !== run.lastWarn) {
    run.lastWarn = reason
    if (wasConnected || run.everConnected) deps.log.warn(`herdr session ${link.session}: ${reason}; retrying every ${run.retryMs / 1000} s`)
    else deps.log.debug(`herdr session ${link.session}: ${reason}`)
  }
  run.retryTimer = setTimeout(() => connect(run), run.retryMs)
  run.retryTimer.unref?.()
}

function teardown(run: SessionRun): void {
  run.link.seeded = false
  run.early = []
  run.earlyLost = 0
  // A connection that ends inside its replay window still owes clients a resync later.
  if (run.replay.abort() > 0) run.everConnected = true
  clearInterval(run.probeTimer)
  run.panes.stopWatchers()
  const m = run.main
  run.main = null
  m?.close()
}
