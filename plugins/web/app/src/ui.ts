/** htm bound to preact: JSX-like templates without a JSX compile step (the repo's tsc has none). */
export { html } from 'htm/preact'
import { html } from 'htm/preact'

type Toast = { id: number; text: string; kind: 'info' | 'error' | 'alert' }
let toasts: Toast[] = []
let nextId = 1
const listeners = new Set<() => void>()

export function toast(text: string, kind: Toast['kind'] = 'info'): void {
  const t = { id: nextId++, text, kind }
  toasts = [...toasts, t].slice(-4)
  listeners.forEach((l) => l())
  setTimeout(
    () => {
      toasts = toasts.filter((x) => x !== t)
      listeners.forEach((l) => l())
    },
    kind === 'info' ? 5000 : 10_000,
  )
}

export const currentToasts = () => toasts
export function onToasts(fn: () => void): () => void {
  listeners.add(fn)
  return () => listeners.delete(fn)
}

export const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err))

export function badge(status: string | undefined) {
  const s = status || 'unknown'
  return html`<span class=${`badge badge-${s}`}>${s}</span>`
}
