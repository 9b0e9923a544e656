/**
 * Which status changes deserve an alert and which clear one, and when an alert may go out.
 * No I/O: the push service feeds it statuses and acts on what it returns.
 *
 * - Entering `blocked` or `done` (or going from one to the other) asks for an alert; leaving
 *   them, or the pane closing, asks for a dismissal. Whether anything was shown to dismiss is
 *   the service's to know (the persisted alerted list, alerted.ts).
 * - A state seen at start-up or when herdr (re)connects is an observation: it asks for an alert
 *   only when it is a notify status (the service skips it when that very state was alerted).
 * - The pacer holds each alert for the settle delay (a state gone sooner never alerts) and
 *   keeps one agent's alerts a cooldown apart; a state reached during the cooldown alerts when
 *   the cooldown ends, if it still holds. So a flapping agent alerts at most once per cooldown.
 */

export type NotifyStatus = 'blocked' | 'done'
export type Change = { kind: 'enter'; status: NotifyStatus } | { kind: 'leave' } | null

export const isNotifyStatus = (s: unknown): s is NotifyStatus => s === 'blocked' || s === 'done'

export interface Transitions {
  /** A status seen in a listing (start-up, reconnect): recorded, and `enter` when it is a notify status. */
  observe(pane: string, status: string): Change
  status(pane: string, status: string): Change
  closed(pane: string): Change
  current(pane: string): string | undefined
}

export function createTransitions(): Transitions {
  const last = new Map<string, string>()
  const change = (prev: string | undefined, status: string): Change => {
    if (prev === status) return null
    if (isNotifyStatus(status)) return { kind: 'enter', status }
    return isNotifyStatus(prev) ? { kind: 'leave' } : null
  }
  return {
    observe(pane, status) {
      last.set(pane, status)
      return isNotifyStatus(status) ? { kind: 'enter', status } : { kind: 'leave' }
    },
    status(pane, status) {
      const prev = last.get(pane)
      last.set(pane, status)
      return change(prev, status)
    },
    closed(pane) {
      const prev = last.get(pane)
      last.delete(pane)
      return isNotifyStatus(prev) ? { kind: 'leave' } : null
    },
    current: (pane) => last.get(pane),
  }
}

export interface PacerOptions {
  settleMs: number
  cooldownMs: number
  now: () => number
  /** Called when a held alert is due and its state still holds. */
  fire: (pane: string, status: NotifyStatus) => void
}

export interface Pacer {
  /** The pane entered a notify status: its alert is due after the settle delay and the cooldown. */
  entered(pane: string, status: NotifyStatus): void
  /** The pane left it: a held alert is dropped. */
  left(pane: string): void
  /** An alert for the pane went out now (starts its cooldown). */
  sent(pane: string): void
  /** Resolves when no alert is held (tests, shutdown). */
  idle(): Promise<void>
  close(): void
}

export function createPacer(opts: PacerOptions): Pacer {
  const held = new Map<string, { status: NotifyStatus; timer: ReturnType<typeof setTimeout> | null }>()
  const lastSent = new Map<string, number>()
  let waiters: (() => void)[] = []
  const settle = () => {
    if (held.size) return
    for (const w of waiters) w()
    waiters = []
  }
  const due = (pane: string) => {
    const h = held.get(pane)
    if (!h) return
    held.delete(pane)
    opts.fire(pane, h.status)
    settle()
  }
  return {
    entered(pane, status) {
      const prev = held.get(pane)
      if (prev?.timer) clearTimeout(prev.timer)
      const now = opts.now()
      const at = Math.max(now + opts.settleMs, (lastSent.get(pane) ?? -Infinity) + opts.cooldownMs)
      // Nothing to wait for: at once, so an alert keeps its place before the pane's next event.
      if (at <= now) {
        held.set(pane, { status, timer: null })
        return due(pane)
      }
      const timer = setTimeout(() => due(pane), at - now)
      timer.unref?.()
      held.set(pane, { status, timer })
    },
    left(pane) {
      const h = held.get(pane)
      if (!h) return
      if (h.timer) clearTimeout(h.timer)
      held.delete(pane)
      settle()
    },
    sent(pane) {
      lastSent.set(pane, opts.now())
      // Forget panes long out of their cooldown, so the map stays as small as the active set.
      if (lastSent.size > 1000) for (const [p, t] of lastSent) if (opts.now() - t > opts.cooldownMs) lastSent.delete(p)
    },
    idle: () => (held.size ? new Promise<void>((r) => waiters.push(r)) : Promise.resolve()),
    close() {
      for (const h of held.values()) if (h.timer) clearTimeout(h.timer)
      held.clear()
      settle()
    },
  }
}
