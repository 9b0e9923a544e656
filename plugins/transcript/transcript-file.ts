/**
 * A transcript file read through an index of its lines: one streaming pass records, for every
 * line that yields entries, its byte offset, length and the entries before it. Pages are then
 * read straight from disk by seq; the file's contents are never held in memory.
 */
import { open, stat, type FileHandle } from 'node:fs/promises'
import { scanLines } from '../../lib/transcript/lines.ts'
import type { Entry, RawEntry } from '../../lib/transcript/entry.ts'
import { createCache } from '../../lib/cache.ts'

export type Normalizer = (line: string) => RawEntry[]
/** Entries a line yields, without building them (the index pass); defaults to normalize().length. */
export type Counter = (line: string) => number

/** Lines longer than this are not parsed: they become one placeholder entry. */
export const MAX_LINE = 8 << 20
/** Byte span merged into one read when paging. */
const SPAN = 4 << 20
const GAP = 64 << 10

export class TranscriptFile {
  /** seq of the entry before the first indexed one (grows when the file is truncated). */
  private base = 0
  private count = 0
  /** End of the last complete line consumed. */
  private indexed = 0
  /** Identity of the indexed file: inode and birth time (a recreated file often gets the inode back). */
  private ino: string | undefined
  private n = 0
  private offs = new Float64Array(1024)
  private lens = new Float64Array(1024)
  private cum = new Float64Array(1024)
  private refreshing: Promise<void> | null = null

  constructor(
    readonly path: string,
    private readonly normalize: Normalizer,
    private readonly counter?: Counter,
  ) {}

  /** seq of the newest entry; equals the entry count when the file was never truncated. */
  get total(): number {
    return this.base + this.count
  }

  /** seq of the oldest entry still readable. */
  get first(): number {
    return this.base + 1
  }

  get exists(): boolean {
    return this.ino !== undefined
  }

  /** Indexes whatever complete lines were appended since the last call. Concurrent calls share one pass. */
  refresh(): Promise<void> {
    return (this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = null)))
  }

  private async doRefresh(): Promise<void> {
    let st
    try {
      st = await stat(this.path)
    } catch {
      return // not there (yet): an empty source that starts when the file appears
    }
    if (!st.isFile()) return
    const ino = `${st.ino}:${st.birthtimeMs}`
    if (this.ino !== undefined && (ino !== this.ino || st.size < this.indexed)) {
      // Replaced or truncated: what the file holds now is new; seqs keep increasing, nothing
      // already indexed is replayed. (Reading on from the old offset would skip or split lines.)
      this.base = this.total
      this.count = 0
      this.n = 0
      this.indexed = 0
    }
    this.ino = ino
    if (st.size <= this.indexed) return
    const fh = await open(this.path, 'r')
    try {
      await this.scan(fh, st.size)
    } finally {
      await fh.close()
    }
  }

  private async scan(fh: FileHandle, size: number): Promise<void> {
    this.indexed = await scanLines(fh, this.indexed, size, MAX_LINE, (text, start, len) => {
      const k = text === null ? 1 : this.countOf(text)
      if (k > 0) this.push(start, len, k)
    })
  }

  private countOf(line: string): number {
    if (!line.trim()) return 0
    try {
      return this.counter ? this.counter(line) : this.normalize(line).length
    } catch {
      return 1
    }
  }

  private push(off: number, len: number, k: number): void {
    if (this.n === this.offs.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2)
        b.set(a)
        return b
      }
      this.offs = grow(this.offs)
      this.lens = grow(this.lens)
      this.cum = grow(this.cum)
    }
    this.offs[this.n] = off
    this.lens[this.n] = len
    this.cum[this.n] = this.count
    this.n++
    this.count += k
  }

  /** Entries with from ≤ seq ≤ to, oldest first, read from disk. */
  async read(from: number, to: number): Promise<Entry[]> {
    from = Math.max(from, this.first)
    to = Math.min(to, this.total)
    if (from > to || this.n === 0) return []
    const base = this.base
    const n = this.n
    const offs = this.offs
    const lens = this.lens
    const cum = this.cum
    // Last line whose first entry is at or before `from`.
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (base + cum[mid] + 1 <= from) lo = mid
      else hi = mid - 1
    }
    const out: Entry[] = []
    const fh = await open(this.path, 'r').catch(() => null)
    if (!fh) return []
    try {
      let i = lo
      while (i < n && base + cum[i] + 1 <= to) {
        // One read for a run of nearby lines.
        let j = i + 1
        while (j < n && base + cum[j] + 1 <= to && offs[j] + lens[j] - offs[i] <= SPAN && offs[j] - (offs[j - 1] + lens[j - 1]) <= GAP) j++
        const spanStart = offs[i]
        const spanLen = offs[j - 1] + lens[j - 1] - spanStart
        const buf = lens[i] > MAX_LINE && j === i + 1 ? null : Buffer.allocUnsafe(spanLen)
        if (buf) await fh.read(buf, 0, spanLen, spanStart)
        for (let r = i; r < j; r++) {
          const first = base + cum[r] + 1
          const k = (r + 1 < n ? cum[r + 1] : this.count) - cum[r]
          let entries: RawEntry[]
          if (lens[r] > MAX_LINE || !buf) entries = [{ id: '', role: 'system', kind: 'message', text: `[line of ${lens[r]} bytes not shown]`, parsed: false }]
          else {
            const text = buf.toString('utf8', offs[r] - spanStart, offs[r] - spanStart + lens[r])
            try {
              entries = this.normalize(text)
            } catch {
              entries = [{ id: '', role: 'system', kind: 'message', parsed: false }]
            }
          }
          // The index promised k entries for this line; keep seqs aligned even if it changed.
          for (let e = 0; e < k; e++) {
            const seq = first + e
            if (seq < from || seq > to) continue
            const raw = entries[e] ?? { id: '', role: 'system', kind: 'message', parsed: false }
            out.push({ ...raw, id: raw.id || `seq-${seq}`, seq })
          }
        }
        i = j
      }
    } finally {
      await fh.close()
    }
    return out
  }
}

const CACHE_MAX = 16
const cache = createCache<string, TranscriptFile>({ max: CACHE_MAX })

/** One shared index per file and reader, so reconnects and parallel streams skip the indexing pass. */
export function openTranscript(path: string, normalize: Normalizer, key = '', count?: Counter): TranscriptFile {
  const id = `${key}\0${path}`
  return cache.get(id) ?? cache.set(id, new TranscriptFile(path, normalize, count))
}
