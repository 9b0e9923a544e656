/**
 * One herdr session's agent panes for the ingester (core/herdr/ingest.ts): every status hint is
 * checked against `pane.get` before it is announced, each agent pane has its own
 * `pane.agent_status_changed` watcher, and a pane found gone is reported `pane_closed`.
 */
import type { Herdr, PaneInfo, Subscription } from './index.ts'
import { HerdrError } from './socket.ts'
import { qualifyId } from './ids.ts'
import { createCoalescer, createStatusBook } from './status-dedupe.ts'

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

export function createSessionPanes(link: SessionLink, retryMs: number) {
  const { session, herdr } = link
  const book = createStatusBook()
  /** Panes known to exist: pane id → workspace id (bare ids). */
  const known = new Map<string, string>()
  const watchers = new Map<string, Subscription>()
  const watcherRetry = new Map<string, NodeJS.Timeout>()
  const q = (id: string) => qualifyId(session, id)
  const current = (g: number) => g === link.gen && !link.stopped

  const announce = (pane: string, rec: { status: string; agent: string; workspace: string }) =>
    link.publish('pane_agent_status_changed', { pane_id: q(pane), workspace_id: q(rec.workspace), agent: rec.agent, agent_status: rec.status })

  /** `pane.get`: null when herdr says the pane is gone, undefined on transport trouble (the reconnect path resyncs). */
  const paneNow = async (pane: string): Promise<PaneInfo | null | undefined> => {
    try {
      return (await herdr.call<{ pane: PaneInfo }>(session, 'pane.get', { pane_id: pane })).pane
    } catch (err) {
      return err instanceof HerdrError && err.notFound ? null : undefined
    }
  }

  /** Forgets a pane's status and stops its watcher. */
  const forget = (pane: string) => {
    book.forget(pane)
    stopWatcher(pane)
  }

  const reportGone = (pane: string, workspace: string) => {
    known.delete(pane)
    forget(pane)
    link.publish('pane_closed', { type: 'pane_closed', pane_id: q(pane), workspace_id: q(workspace), inferred: true })
  }

  const verifier = createCoalescer(async (pane) => {
    const g = link.gen
    const info = await paneNow(pane)
    if (info === undefined || !current(g)) return
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
    const g = link.gen
    const info = await paneNow(pane)
    if (info === undefined || !current(g) || !book.has(pane)) return
    if (info?.agent && info.agent === prev.agent) return // still there: a replayed release
    const rec = book.commit(pane, typeof data.final_status === 'string' ? data.final_status : undefined, data.agent || prev.agent, data.workspace_id)
    if (rec) announce(pane, rec)
    if (info?.agent) void verifier.request(pane)
    else forget(pane)
  }

  const ensureWatcher = (pane: string) => {
    if (watchers.has(pane) || watcherRetry.has(pane) || !link.seeded || link.stopped) return
    const g = link.gen
    const sub = herdr.subscribe(session, [{ type: 'pane.agent_status_changed', pane_id: pane }], {
      // A transition between the seed and this ack would otherwise go unseen.
      onAck: () => void verifier.request(pane),
      onEvent: (name, data) => {
        if (name === 'pane.agent_status_changed') hint(pane, data?.agent_status)
      },
      onClose: () => {
        if (watchers.get(pane) !== sub) return
        watchers.delete(pane)
        if (!current(g) || !book.has(pane)) return
        // Retry after a pause; the check stops for good when the pane or its agent is gone.
        const retry = setTimeout(() => {
          watcherRetry.delete(pane)
          if (current(g)) void verifier.request(pane)
        }, retryMs)
        watcherRetry.set(pane, retry)
      },
    })
    watchers.set(pane, sub)
  }

  const stopWatcher = (pane: string) => {
    const w = watchers.get(pane)
    watchers.delete(pane)
    w?.close()
    clearTimeout(watcherRetry.get(pane))
    watcherRetry.delete(pane)
  }

  /** What a lifecycle event says about panes; inside the replay window it may be history. */
  const track = (name: string, data: any, replaying: boolean) => {
    switch (name) {
      case 'pane_created':
      case 'pane_updated':
        if (data?.pane?.agent) hint(data.pane.pane_id, data.pane.agent_status)
        if (!replaying && data?.pane?.pane_id) known.set(data.pane.pane_id, data.pane.workspace_id)
        break
      case 'pane_agent_detected':
        if (data?.released) void released(data)
        else hint(data?.pane_id, data?.final_status)
        break
      case 'pane_closed':
      case 'pane_exited':
        // Live, the event is the truth; inside the replay window it is checked.
        if (!replaying) {
          known.delete(data?.pane_id)
          forget(data?.pane_id)
        } else if (typeof data?.pane_id === 'string' && known.has(data.pane_id)) void verifier.request(data.pane_id)
        break
      case 'pane_moved':
        if (!replaying && data?.previous_pane_id && data?.pane?.pane_id) {
          known.delete(data.previous_pane_id)
          known.set(data.pane.pane_id, data.pane.workspace_id)
          book.rename(data.previous_pane_id, data.pane.pane_id)
          stopWatcher(data.previous_pane_id)
          if (book.has(data.pane.pane_id)) ensureWatcher(data.pane.pane_id)
        }
        break
    }
  }

  return {
    book,
    track,
    known,
    announce,
    forget,
    reportGone,
    hint,
    released,
    ensureWatcher,
    stopWatcher,
    stopWatchers: () => {
      for (const p of [...watchers.keys(), ...watcherRetry.keys()]) stopWatcher(p)
    },
  }
}
