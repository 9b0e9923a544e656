import type { Api } from './api.ts'
import { jsonObject } from './json.ts'

export interface Size {
  cols: number
  rows: number
}

/** herdr's own observe viewport when the pane's size is unknown. */
export const DEFAULT_WATCH_SIZE: Size = { cols: 120, rows: 40 }

/** The pane's cell size from a session snapshot's layouts (`rect` is in cells). */
export function paneRect(snapshot: unknown, pane: string): Size | null {
  for (const layout of list(jsonObject(snapshot)?.layouts)) {
    for (const item of list(jsonObject(layout)?.panes)) {
      const p = jsonObject(item)
      const rect = jsonObject(p?.rect)
      const w = rect?.width
      const h = rect?.height
      if (p?.pane_id === pane && typeof w === 'number' && typeof h === 'number' && Number.isInteger(w) && Number.isInteger(h) && w > 0 && h > 0) return { cols: w, rows: h }
    }
  }
  return null
}

/** An array field's items; nothing when it is absent or not an array. */
const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : [])

/**
 * The desk pane's size, so a watcher renders it whole: herdr draws an observer's view into the
 * observer's own viewport and never resizes the pane for it, so a smaller viewport would crop it.
 */
export async function paneSize(api: Api, pane: string): Promise<Size> {
  const slash = pane.indexOf('/')
  const session = slash > 0 ? pane.slice(0, slash) : undefined
  try {
    const r = await api.post<{ result: { snapshot?: unknown } }>('/herdr', { method: 'session.snapshot', params: {}, ...(session ? { session } : {}) })
    return paneRect(r?.result?.snapshot, pane) ?? DEFAULT_WATCH_SIZE
  } catch {
    return DEFAULT_WATCH_SIZE
  }
}

export const MIN_FONT = 7
export const MAX_FONT = 15

/**
 * The font size that fits a cols×rows terminal in the box: measured cell size at `font`, scaled
 * to the limiting side, clamped so text stays legible (the box then scrolls to reach the rest).
 */
export function fitFont(font: number, cell: { width: number; height: number }, size: Size, box: { width: number; height: number }): number {
  if (!(cell.width > 0 && cell.height > 0 && box.width > 0 && box.height > 0)) return font
  const scale = Math.min(box.width / (cell.width * size.cols), box.height / (cell.height * size.rows))
  return Math.max(MIN_FONT, Math.min(MAX_FONT, Math.floor(font * scale * 10) / 10))
}
