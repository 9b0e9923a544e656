/**
 * One herdr session's agent panes for the ingester (core/herdr/ingest.ts): every status hint is
 * checked against `pane.get` before it is announced, each agent pane has its own
 * `pane.agent_status_changed` watcher, and a pane found gone is reported `pane_closed`.
 */
import type { Herdr, PaneInfo, Subscription } from './index.ts'
import { HerdrError } from './socket.ts'
import { qualifyId } from './ids.ts'
import { createCoalescer, createStatusBook, type PaneStatus, type StatusBook } from './status-dedupe.ts'
import { openFileLimit } from '../limits.ts'

/** The connection facts the pane parts share with the session ingester. */
export interface SessionLink {
  session: string
  herdr: Herdr
  /** Bumped on every (re)connect and stop: answers for an older connection are dropped. */
  gen: number
  stopped: boolean
  /** The current connection has its snapshot (watchers start only after it). */
  seeded: boolean
  publish(type: string, payload: object): void
}

export type SessionPanes = ReturnType<typeof createSessionPanes>

/** What the event tracking below works with. */
interface PaneParts {
  link: SessionLink
  book: StatusBook
  /** Panes known to exist: pane id → workspace id (bare ids). */
  known: Map<string, string>
  announce(pane: string, rec: PaneStatus): void
  /** Reports a pane gone without an event of its own (`pane_closed`, inferred). */
  reportGone(pane: string, workspace: string): void
  /** Forgets a pane's status and stops its watcher. */
  forget(pane: string): void
  /** Checks a pane against `pane.get` (coalesced) and announces what changed. */
  check(pane: string): void
  /** A status-bearing event: worth a check unless it repeats what is published and watched. */
  hint(pane: unknown, status: unknown): void
  watchers: PaneWatchers
}

/** Whether `g` is still the connection the ingester runs. */
const isCurrent = (link: SessionLink, g: number) => g === link.gen && !link.stopped

/**
 * How many agent panes of one session get a live status subscription (one herdr connection,
 * one descriptor each): a quarter of the open-file limit, at least 16, so a thousand agents
 * cannot take every descriptor the HTTP side needs. Panes past it are checked every 10 s.
 */
export function defaultMaxWatchers(nofile = openFileLimit()): number {
  return Math.max(16, Math.floor((nofile ?? 4096) / 4))
}
const UNWATCHED_POLL_MS = 10_000

export function createSessionPanes(link: SessionLink, retryMs: number, maxWatchers = defaultMaxWatchers(), log?: (line: string) => void) {
  const q = (id: string) => qualifyId(link.session, id)
  const book = createStatusBook()
  const known = new Map<string, string>()
  const verifier = createCoalescer((pane) => verify(p, pane))
  const p: PaneParts = {
    link,
    book,
    known,
    announce: (pane, rec) => link.publish('pane_agent_status_changed', { pane_id: q(pane), workspace_id: q(rec.workspace), agent: rec.agent, agent_status: rec.status }),
    reportGone(pane, workspace) {
      known.delete(pane)
      p.forget(pane)
      link.publish('pane_closed', { type: 'pane_closed', pane_id: q(pane), workspace_id: q(workspace), inferred: true })
    },
    forget(pane) {
      book.forget(pane)
      p.watchers.stop(pane)
    },
    check: (pane) => void verifier.request(pane),
    hint(pane, status) {
      if (typeof pane !== 'string' || !pane) return
      if (!verifier.busy(pane) && p.watchers.has(pane) && book.get(pane)?.status === status) return
      void verifier.request(pane)
    },
    watchers: createPaneWatchers(link, retryMs, maxWatchers, log, {
      check: (pane) => p.check(pane),
      verify: (pane) => verify(p, pane),
      hint: (pane, status) => p.hint(pane, status),
      tracked: (pane) => book.has(pane),
    }),
  }
  return {
    book,
    known,
    announce: p.announce,
    forget: p.forget,
    reportGone: p.reportGone,
    ensureWatcher: p.watchers.ensure,
    stopWatchers: p.watchers.stopAll,
    /** What a lifecycle event says about panes; inside the replay window it may be history. */
    track: (name: string, data: unknown, replaying: boolean) => trackEvent(p, name, data as PaneEvent | null | undefined, replaying),
  }
}

/** `pane.get`: null when herdr says the pane is gone, undefined on transport trouble (the reconnect path resyncs). */
async function paneNow(link: SessionLink, pane: string): Promise<PaneInfo | null | undefined> {
  try {
    return (await link.herdr.call<{ pane: PaneInfo }>(link.session, 'pane.get', { pane_id: pane })).pane
  } catch (err) {
    return err instanceof HerdrError && err.notFound ? null : undefined
  }
}

/** A pane checked against `pane.get`: gone, without its agent, or its status announced if it changed. */
async function verify(p: PaneParts, pane: string): Promise<void> {
  const g = p.link.gen
  const info = await paneNow(p.link, pane)
  if (info === undefined || !isCurrent(p.link, g)) return
  if (!info) {
    if (p.book.has(pane) || p.known.has(pane)) p.reportGone(pane, p.known.get(pane) ?? p.book.get(pane)?.workspace ?? '')
    return
  }
  p.known.set(pane, info.workspace_id)
  if (!info.agent) {
    // The agent left; a release event announces its final status separately.
    if (p.book.has(pane)) p.forget(pane)
    return
  }
  p.watchers.ensure(pane)
  const rec = p.book.commit(pane, info.agent_status, info.agent, info.workspace_id)
  if (rec) p.announce(pane, rec)
}

type PaneWatchers = ReturnType<typeof createPaneWatchers>

/**
 * One `pane.agent_status_changed` subscription per agent pane (herdr has no global status
 * event), started once the connection is seeded and retried while the pane keeps its agent.
 * At most `max` at once; the panes past that are checked one after another every 10 s.
 */
function createPaneWatchers(
  link: SessionLink,
  retryMs: number,
  max: number,
  log: ((line: string) => void) | undefined,
  on: { check(pane: string): void; verify(pane: string): Promise<void>; hint(pane: string, status: unknown): void; tracked(pane: string): boolean },
) {
  const watchers = new Map<string, Subscription>()
  const retries = new Map<string, NodeJS.Timeout>()
  const unwatched = new Set<string>()
  let poller: NodeJS.Timeout | undefined
  let warned = false
  const poll = () => {
    const round = async () => {
      // Sequential: the point is to hold one descriptor for them all, not one each.
      for (const pane of [...unwatched]) if (unwatched.has(pane) && !link.stopped) await on.verify(pane).catch(() => {})
      if (unwatched.size && !link.stopped) poll()
      else poller = undefined
    }
    poller = setTimeout(() => void round(), UNWATCHED_POLL_MS)
    poller.unref()
  }
  const stop = (pane: string) => {
    const w = watchers.get(pane)
    watchers.delete(pane)
    w?.close()
    clearTimeout(retries.get(pane))
    retries.delete(pane)
    unwatched.delete(pane)
  }
  const ensure = (pane: string) => {
    if (watchers.has(pane) || retries.has(pane) || unwatched.has(pane) || !link.seeded || link.stopped) return
    if (watchers.size + retries.size >= max) {
      unwatched.add(pane)
      if (!warned) {
        warned = true
        log?.(
          `herdr session ${link.session}: more than ${max} agent panes; ${max} have their status watched live (a quarter of the open-file limit), the others are checked every ${UNWATCHED_POLL_MS / 1000} s`,
        )
      }
      if (!poller) poll()
      return
    }
    const g = link.gen
    const sub = link.herdr.subscribe(link.session, [{ type: 'pane.agent_status_changed', pane_id: pane }], {
      // A transition between the seed and this ack would otherwise go unseen.
      onAck: () => on.check(pane),
      onEvent: (name, data) => {
        if (name === 'pane.agent_status_changed') on.hint(pane, (data as { agent_status?: unknown } | null | undefined)?.agent_status)
      },
      onClose: () => {
        if (watchers.get(pane) !== sub) return
        watchers.delete(pane)
        if (!isCurrent(link, g) || !on.tracked(pane)) return
        // Retry after a pause; the check stops for good when the pane or its agent is gone.
        const retry = setTimeout(() => {
          retries.delete(pane)
          if (isCurrent(link, g)) on.check(pane)
        }, retryMs)
        retries.set(pane, retry)
      },
    })
    watchers.set(pane, sub)
  }
  return {
    has: (pane: string) => watchers.has(pane),
    ensure,
    stop,
    stopAll: () => {
      for (const pane of [...watchers.keys(), ...retries.keys(), ...unwatched]) stop(pane)
      clearTimeout(poller)
      poller = undefined
      warned = false
    },
    /** Panes checked by the poll instead of a subscription. */
    unwatched: () => unwatched.size,
  }
}

/**
 * The fields of herdr's pane lifecycle events the tracker reads (herdr-protocol.md). They arrive as
 * parsed JSON, so every read stays optional-chained and ids are checked where a wrong type matters.
 */
interface PaneEvent {
  pane?: { pane_id: string; workspace_id: string; agent?: string; agent_status?: string }
  pane_id?: string
  previous_pane_id?: string
  released?: boolean
  final_status?: unknown
  agent?: string
  workspace_id?: string
}

function trackEvent(p: PaneParts, name: string, data: PaneEvent | null | undefined, replaying: boolean): void {
  const { book, known } = p
  switch (name) {
    case 'pane_created':
    case 'pane_updated':
      if (data?.pane?.agent) p.hint(data.pane.pane_id, data.pane.agent_status)
      if (!replaying && data?.pane?.pane_id) known.set(data.pane.pane_id, data.pane.workspace_id)
      break
    case 'pane_agent_detected':
      if (data?.released) void released(p, data)
      else p.hint(data?.pane_id, data?.final_status)
      break
    case 'pane_closed':
    case 'pane_exited':
      // Live, the event is the truth; inside the replay window it is checked.
      if (!replaying) {
        known.delete(data?.pane_id as string)
        p.forget(data?.pane_id as string)
      } else if (typeof data?.pane_id === 'string' && known.has(data.pane_id)) p.check(data.pane_id)
      break
    case 'pane_moved':
      if (!replaying && data?.previous_pane_id && data?.pane?.pane_id) {
        known.delete(data.previous_pane_id)
        known.set(data.pane.pane_id, data.pane.workspace_id)
        book.rename(data.previous_pane_id, data.pane.pane_id)
        p.watchers.stop(data.previous_pane_id)
        if (book.has(data.pane.pane_id)) p.watchers.ensure(data.pane.pane_id)
      }
      break
  }
}

/** `pane_agent_detected {released:true, final_status}`: the agent ended. */
async function released(p: PaneParts, data: PaneEvent): Promise<void> {
  const pane = data.pane_id
  if (typeof pane !== 'string') return
  const prev = p.book.get(pane)
  if (!prev) return // not an agent we announced: history, or already handled
  const g = p.link.gen
  const info = await paneNow(p.link, pane)
  if (info === undefined || !isCurrent(p.link, g) || !p.book.has(pane)) return
  if (info?.agent && info.agent === prev.agent) return // still there: a replayed release
  const rec = p.book.commit(pane, typeof data.final_status === 'string' ? data.final_status : undefined, data.agent || prev.agent, data.workspace_id)
  if (rec) p.announce(pane, rec)
  if (info?.agent) p.check(pane)
  else p.forget(pane)
}
