/** htm bound to preact: JSX-like templates without a JSX compile step (the repo's tsc has none). */
export { html } from 'htm/preact'
import { html } from 'htm/preact'

import { createToasts, type ToastKind } from './lib/toasts.ts'

/** The page's toasts (one store: app.ts draws them, any view pushes). */
const toasts = createToasts()

export function toast(text: string, kind: ToastKind = 'info'): void {
  toasts.push(text, kind)
}

export const currentToasts = toasts.list
export const onToasts = toasts.subscribe

export const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/** The value of the field an input/change event came from (an input, a select or a textarea). */
export const fieldValue = (e: Event): string => (e.currentTarget as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement).value

/** The files picked in the file input a change event came from. */
export const pickedFiles = (e: Event): FileList | null => (e.currentTarget as HTMLInputElement).files

export function badge(status: string | undefined) {
  const s = status || 'unknown'
  return html`<span class=${`badge badge-${s}`}>${s}</span>`
}
