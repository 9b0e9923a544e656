/** The seen marks in memory, written through on every change (writes serialized, in order). */
import { isObj } from '../../lib/transcript/entry.ts'

export const MAX_SEEN = 1000

export interface SeenMark {
  seq: number
  at: number
}

export interface SeenBook {
  all(): Record<string, SeenMark>
  /** Raises the pane's mark to `seq`; a lower or equal seq changes nothing. */
  mark(pane: string, seq: number): Promise<SeenMark & { changed: boolean }>
  flush(): Promise<void>
}

/** Keeps only well-formed entries of a stored document (a hand-edited file loses its bad lines, not the rest). */
function parse(stored: unknown): Map<string, SeenMark> {
  const out = new Map<string, SeenMark>()
  if (!isObj(stored)) return out
  for (const [pane, m] of Object.entries(stored)) {
    if (!isObj(m)) continue
    const { seq, at } = m
    if (typeof seq === 'number' && Number.isInteger(seq) && seq >= 0 && typeof at === 'number') out.set(pane, { seq, at })
  }
  return out
}

export function createSeenBook(stored: unknown, now: () => number, save: (marks: Record<string, SeenMark>) => Promise<void>): SeenBook {
  const marks = parse(stored)
  let writing: Promise<void> = Promise.resolve()
  const all = () => Object.fromEntries([...marks].map(([k, m]) => [k, { ...m }]))
  return {
    all,
    async mark(pane, seq) {
      const had = marks.get(pane)
      if (had && had.seq >= seq) return { ...had, changed: false }
      const m = { seq, at: now() }
      // Re-inserted last, so the map's order is the order of last marking and the oldest go first.
      marks.delete(pane)
      marks.set(pane, m)
      while (marks.size > MAX_SEEN) marks.delete(marks.keys().next().value!)
      const doc = all()
      const p = writing.then(() => save(doc))
      writing = p.catch(() => {})
      await p
      return { ...m, changed: true }
    },
    flush: () => writing,
  }
}
