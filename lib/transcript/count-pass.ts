/**
 * The index pass over a byte range of a transcript: for every line that yields entries, its
 * offset, length and the entries before it. Pure over the file, so it runs the same on the main
 * thread and in the counting worker (plugins/transcript/count-worker.ts), and both count alike.
 */
import type { FileHandle } from 'node:fs/promises'
import { scanLines } from './lines.ts'

/** Entries a line yields, without building them. */
export type LineCounter = (line: string) => number

/** Lines [from, indexed) of a file: `n` lines that yield entries, `count` entries in all. */
export interface CountedRange {
  indexed: number
  n: number
  count: number
  offs: Float64Array
  lens: Uint32Array
  /** Entries before each line, counted from the range's start. */
  cum: Uint32Array
}

/** What one line counts for: blank lines none, unparsed (oversized) lines and counter errors one. */
export function countOf(text: string | null, counter: LineCounter): number {
  if (text === null) return 1
  if (!text.trim()) return 0
  try {
    return counter(text)
  } catch {
    return 1
  }
}

/** Lines the largest block holds (512 KiB of offsets); the first holds 1024 (a tail refresh adds a few lines). */
const BLOCK = 1 << 16

/** A count as blocks, each allocated once (the last one trimmed); flatten() joins them. */
export interface CountedBlocks {
  indexed: number
  n: number
  count: number
  offs: Float64Array[]
  lens: Uint32Array[]
  cum: Uint32Array[]
}

/**
 * Counts in fixed blocks rather than arrays grown by doubling, which copy the index at every
 * growth and leave the old buffers to be freed: each block is allocated once, and the pass ends
 * with one join into arrays exactly n long (the form the main thread adopts as its index).
 */
export async function countBlocks(fh: FileHandle, from: number, to: number, maxLine: number, counter: LineCounter): Promise<CountedBlocks> {
  const out: CountedBlocks = { indexed: from, n: 0, count: 0, offs: [], lens: [], cum: [] }
  let size = 0
  let at = 0
  out.indexed = await scanLines(fh, from, to, maxLine, (text, start, len) => {
    const k = countOf(text, counter)
    if (k <= 0) return
    if (at === size) {
      size = Math.min(BLOCK, Math.max(1024, size * 2))
      out.offs.push(new Float64Array(size))
      out.lens.push(new Uint32Array(size))
      out.cum.push(new Uint32Array(size))
      at = 0
    }
    const b = out.offs.length - 1
    out.offs[b][at] = start
    out.lens[b][at] = Math.min(len, 0xffffffff)
    out.cum[b][at] = out.count
    at++
    out.n++
    out.count += k
  })
  const last = out.offs.length - 1
  if (last >= 0 && at < size) {
    out.offs[last] = out.offs[last].slice(0, at)
    out.lens[last] = out.lens[last].slice(0, at)
    out.cum[last] = out.cum[last].slice(0, at)
  }
  return out
}

/** The blocks as one array each, exactly n long. */
export function flatten(b: CountedBlocks): CountedRange {
  const join = <T extends Float64Array | Uint32Array>(parts: T[], make: new (n: number) => T): T => {
    const a = new make(b.n)
    let at = 0
    for (const p of parts) {
      a.set(p, at)
      at += p.length
    }
    return a
  }
  return { indexed: b.indexed, n: b.n, count: b.count, offs: join(b.offs, Float64Array), lens: join(b.lens, Uint32Array), cum: join(b.cum, Uint32Array) }
}

export async function countRange(fh: FileHandle, from: number, to: number, maxLine: number, counter: LineCounter): Promise<CountedRange> {
  return flatten(await countBlocks(fh, from, to, maxLine, counter))
}

/** `a` copied into a new array of at least `min` (and at least twice its) elements. */
export function grow<T extends Float64Array | Uint32Array>(a: T, min = a.length * 2): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(min, a.length * 2))
  b.set(a)
  return b
}

/**
 * URL of a module beside `base` (an import.meta.url) for a worker to load: `rel` names the
 * TypeScript source; compiled code (dist/) has the .js beside it. The bundle swaps each call for
 * its own entry's name (scripts/bundle.mjs).
 */
export function moduleBeside(base: string, rel: string): string | undefined {
  return new URL(base.endsWith('.ts') ? rel : rel.replace(/\.ts$/, '.js'), base).href
}
