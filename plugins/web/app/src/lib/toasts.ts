/**
 * The toasts' state, without the DOM: what is kept, what the one line shows, when each goes.
 *
 * The line shows one toast and counts the others ("+2 more"). Which one matters: an agent's
 * alert ("claude is done") often arrives a moment after the user tapped something, and showing
 * the newest toast let that alert hide the tap's own result for the rest of its life. So the
 * line shows the newest answer to the user (info, error) while one lasts, and alerts only when
 * none does; an alert is in the inbox and the needs-you count anyway.
 */
export type ToastKind = 'info' | 'error' | 'alert'
export interface Toast {
  id: number
  text: string
  kind: ToastKind
}

/** How long each kind stays: a result 5 s; errors and agents' alerts, which matter more, 10 s. */
export const TOAST_MS: Record<ToastKind, number> = { info: 5000, error: 10_000, alert: 10_000 }
/** Toasts kept at most; past it an alert goes first, so a burst of alerts never drops a result. */
export const TOAST_CAP = 8

/** The toast the line shows: the newest that is not an alert, else the newest alert. */
export function shownToast(list: readonly Toast[]): Toast | undefined {
  for (let i = list.length - 1; i >= 0; i--) if (list[i].kind !== 'alert') return list[i]
  return list[list.length - 1]
}

/** `list` with `t` added, and the oldest alert (else the oldest toast) dropped past the cap. */
export function addToast(list: readonly Toast[], t: Toast, cap = TOAST_CAP): Toast[] {
  const next = [...list, t]
  while (next.length > cap) {
    const alert = next.findIndex((x) => x.kind === 'alert' && x !== t)
    next.splice(alert >= 0 ? alert : 0, 1)
  }
  return next
}

/** A toast store: push, read, subscribe; each toast goes after its kind's time. */
export function createToasts() {
  let list: Toast[] = []
  let nextId = 1
  const timers = new Map<number, ReturnType<typeof setTimeout>>()
  const listeners = new Set<() => void>()
  const emit = () => listeners.forEach((l) => l())

  return {
    push(text: string, kind: ToastKind = 'info'): Toast {
      const t = { id: nextId++, text, kind }
      const before = list
      list = addToast(list, t)
      for (const x of before) {
        if (list.includes(x)) continue
        clearTimeout(timers.get(x.id))
        timers.delete(x.id)
      }
      timers.set(
        t.id,
        setTimeout(() => {
          timers.delete(t.id)
          list = list.filter((x) => x !== t)
          emit()
        }, TOAST_MS[kind]),
      )
      emit()
      return t
    },
    list: (): readonly Toast[] => list,
    subscribe(fn: () => void): () => void {
      listeners.add(fn)
      return () => void listeners.delete(fn)
    },
  }
}
