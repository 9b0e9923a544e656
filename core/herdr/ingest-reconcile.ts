/**
 * Brings one session's known panes and statuses in line with `session.snapshot`: at the seed
 * (announcing nothing) and afterwards, reporting panes that vanished without an event.
 */
import type { PaneInfo } from './index.ts'
import type { SessionSnapshot } from '../../lib/herdr/api.ts'
import type { SessionLink, SessionPanes } from './ingest-panes.ts'

export function createReconciler(link: SessionLink, panes: SessionPanes) {
  const { book, known } = panes

  /** Applies a snapshot; `seed` announces nothing. */
  const apply = (snap: Partial<SessionSnapshot> | undefined, seed: boolean) => {
    // herdr's answer is read defensively: a field of the wrong shape counts as absent.
    const listed = (Array.isArray(snap?.panes) ? snap.panes : []) as PaneInfo[]
    const agents = Array.isArray(snap?.agents) ? snap.agents : []
    const now = new Map(listed.map((p) => [p.pane_id, p.workspace_id]))
    if (seed) {
      known.clear()
      for (const [p, w] of now) known.set(p, w)
      book.seed(agents)
    } else {
      for (const [p, w] of [...known]) if (!now.has(p)) panes.reportGone(p, w)
      for (const [p, w] of now) known.set(p, w)
      const withAgent = new Set(agents.map((a) => a.pane_id))
      for (const p of book.panes()) if (!withAgent.has(p) && now.has(p)) panes.forget(p)
      for (const a of agents) {
        const rec = book.commit(a.pane_id, a.agent_status, a.agent, a.workspace_id)
        if (rec) panes.announce(a.pane_id, rec)
      }
    }
    for (const a of agents) if (a.pane_id) panes.ensureWatcher(a.pane_id)
  }

  /** The snapshot now, or undefined when herdr did not answer. */
  const snapshot = async (): Promise<Partial<SessionSnapshot> | undefined> => {
    try {
      return (await link.herdr.call<{ snapshot?: Partial<SessionSnapshot> }>(link.session, 'session.snapshot', {})).snapshot
    } catch {
      return undefined
    }
  }

  // One reconcile at a time; a request during one runs it once more after.
  let running: Promise<void> | null = null
  let again = false
  const reconcile = (): Promise<void> => {
    if (running) {
      again = true
      return running
    }
    running = (async () => {
      try {
        do {
          again = false
          const g = link.gen
          const snap = await snapshot()
          if (snap === undefined || g !== link.gen || link.stopped || !link.seeded) return
          apply(snap, false)
        } while (again)
      } finally {
        running = null
      }
    })()
    return running
  }

  return { apply, snapshot, reconcile }
}
