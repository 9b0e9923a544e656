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

export async function countRange(fh: FileHandle, from: number, to: number, maxLine: number, counter: LineCounter): Promise<CountedRange> {
  let offs = new Float64Array(1024)
  let lens = new Uint32Array(1024)
  let cum = new Uint32Array(1024)
  let n = 0
  let count = 0
  const indexed = await scanLines(fh, from, to, maxLine, (text, start, len) => {
    const k = countOf(text, counter)
    if (k <= 0) return
    if (n === offs.length) {
      offs = grow(offs)
      lens = grow(lens)
      cum = grow(cum)
    }
    offs[n] = start
    lens[n] = Math.min(len, 0xffffffff)
    cum[n] = count
    n++
    count += k
  })
  return { indexed, n, count, offs, lens, cum }
}

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
