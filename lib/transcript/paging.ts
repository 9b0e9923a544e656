/**
 * Page arithmetic of /agent-transcript (docs/api-websockets.md: the newest 150 entries on connect,
 * `load_older` pages of 150 by default, at most 500) over the seqs first..total (first = 1
 * unless truncated).
 */

export const NEWEST_PAGE = 150
export const OLDER_DEFAULT = 150
export const OLDER_MAX = 500

export interface Page {
  /** Inclusive seq range; empty when from > to. */
  from: number
  to: number
  count: number
  /** seq of the oldest entry in the page, 0 when empty. */
  oldest: number
  has_older: boolean
}

const page = (from: number, to: number, first: number): Page =>
  from > to ? { from, to, count: 0, oldest: 0, has_older: false } : { from, to, count: to - from + 1, oldest: from, has_older: from > first }

export function newestPage(first: number, total: number, size = NEWEST_PAGE): Page {
  return page(Math.max(first, total - size + 1), total, first)
}

/** `limit` omitted or ≤ 0 means the default; over the maximum is capped. */
export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit) || limit <= 0) return OLDER_DEFAULT
  return Math.min(Math.floor(limit), OLDER_MAX)
}

/** Entries immediately older than `beforeSeq`. */
export function olderPage(first: number, total: number, beforeSeq: number, limit?: number): Page {
  const to = Math.min(beforeSeq - 1, total)
  return page(Math.max(first, to - clampLimit(limit) + 1), to, first)
}
