/**
 * Which status changes deserve an alert and which clear one. Pure state, no I/O.
 *
 * - An alert goes out on a transition INTO `blocked` or `done` seen after the watcher started;
 *   a state that already held at start-up (the baseline) is not replayed.
 * - A notified pane is "armed" from the transition on: leaving the notified status, or closing, dismisses it.
 * - blocked → done re-alerts with the same tag (it replaces the tray entry); no dismiss is
 *   sent first, because FCM does not order messages and a late dismiss would cancel the new alert.
 */

export type NotifyStatus = 'blocked' | 'done'
export type Action = { kind: 'alert'; status: NotifyStatus } | { kind: 'dismiss' }

export const isNotifyStatus = (s: unknown): s is NotifyStatus => s === 'blocked' || s === 'done'

export interface Transitions {
  /** Records a status that held at start-up; ignored when an event already told us more. */
  baseline(pane: string, status: string): void
  status(pane: string, status: string): Action[]
  closed(pane: string): Action[]
  armed(pane: string): NotifyStatus | undefined
}

export function createTransitions(): Transitions {
  const last = new Map<string, string>()
  const notified = new Map<string, NotifyStatus>()
  return {
    baseline(pane, status) {
      if (!last.has(pane)) last.set(pane, status)
    },
    status(pane, status) {
      const prev = last.get(pane)
      last.set(pane, status)
      if (prev === status) return []
      const out: Action[] = []
      const armed = notified.get(pane)
      if (isNotifyStatus(status)) {
        // Armed at once, not after delivery: a quick leave must still dismiss, and it queues
        // behind this pane's alert. An earlier notification is replaced by the new one.
        notified.set(pane, status)
        out.push({ kind: 'alert', status })
      } else if (armed) {
        notified.delete(pane)
        out.push({ kind: 'dismiss' })
      }
      return out
    },
    closed(pane) {
      last.delete(pane)
      if (!notified.has(pane)) return []
      notified.delete(pane)
      return [{ kind: 'dismiss' }]
    },
    armed: (pane) => notified.get(pane),
  }
}
