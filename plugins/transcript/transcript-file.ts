/**
 * A transcript file read through an index of its lines: one streaming pass records, for every
 * line that yields entries, its byte offset, length and the entries before it. Pages are then
 * read straight from disk by seq; the file's contents are never held in memory.
 */
import { open, stat, type FileHandle } from 'node:fs/promises'
import { countRange, grow, type CountedRange } from '../../lib/transcript/count-pass.ts'
import { canCountInWorker, countInWorker } from './count-in-worker.ts'
import { identify, loadIndex, saveIndex, type FileIdentity } from '../../lib/transcript/index-store.ts'
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
/** Files smaller than this are indexed again on every open; persisting them costs more than it saves. */
const PERSIST_MIN = 1 << 20
/** Ranges at least this long are counted in a worker thread when the kind has a counter module. */
export const WORKER_MIN = 8 << 20

/** Where a file's index is kept across restarts, and the reader it counts for (kinds count differently). */
export interface IndexStore {
  dir: string
  key: string
  onError?(err: unknown): void
}

export class TranscriptFile {
  /** seq of the entry before the first indexed one (grows when the file is truncated). */
  private base = 0
  private count = 0
  /** End of the last complete line consumed. */
  private indexed = 0
  /** Identity of the indexed file: inode and birth time (a recreated file often gets the inode back). */
  private ino: string | undefined
  private n = 0
  // 16 bytes a line: a 1 GB transcript of a million lines keeps 16 MB here.
  private offs: Float64Array = new Float64Array(1024)
  private lens: Uint32Array = new Uint32Array(1024)
  private cum: Uint32Array = new Uint32Array(1024)
  private refreshing: Promise<void> | null = null
  /** Identity of the file as stored (set once the store was consulted), and how far it was saved. */
  private stored: FileIdentity | null = null
  private savedAt = 0
  /** Settles once every background index write started so far has (never rejects). */
  saving: Promise<void> = Promise.resolve()

  constructor(
    readonly path: string,
    private readonly normalize: Normalizer,
    private readonly counter?: Counter,
    private readonly store?: IndexStore,
    /** URL of a module whose `count` export equals `counter` (TranscriptCapability.counter). */
    private readonly counterModule?: string,
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
      this.stored = null
      this.savedAt = 0
    }
    this.ino = ino
    if (st.size <= this.indexed) return
    const fh = await open(this.path, 'r')
    try {
      if (this.store && !this.stored && st.size >= PERSIST_MIN) {
        if (this.n === 0 && this.indexed === 0) await this.restore(fh, st)
        else this.stored = await identify(fh, st)
      }
      await this.scan(fh, st.size)
    } finally {
      await fh.close()
    }
    this.persist()
  }

  /** Adopts the stored index of this file, when there is a valid one. */
  private async restore(fh: FileHandle, st: import('node:fs').Stats): Promise<void> {
    const id = await identify(fh, st)
    this.stored = id
    const image = await loadIndex(this.store!.dir, this.store!.key, id, fh, st.size).catch(() => null)
    if (!image) return
    this.adopt(image)
    this.savedAt = image.indexed
  }

  /**
   * Takes a whole index as it is, arrays included (a worker's and a stored image's come trimmed):
   * no second copy of 16 bytes a line while the first waits for the GC.
   */
  private adopt(r: CountedRange): void {
    this.offs = r.offs
    this.lens = r.lens
    this.cum = r.cum
    this.n = r.n
    this.count = r.count
    this.indexed = r.indexed
  }

  /** Saves the index in the background once enough was added since the last save. */
  private persist(): void {
    const id = this.stored
    if (!this.store || !id || this.indexed < PERSIST_MIN) return
    if (this.indexed - this.savedAt < Math.max(PERSIST_MIN, this.savedAt / 10)) return
    this.savedAt = this.indexed
    const { dir, key, onError } = this.store
    const write = saveIndex(dir, key, id, { indexed: this.indexed, count: this.count, n: this.n, offs: this.offs, lens: this.lens, cum: this.cum }).catch((err) => onError?.(err))
    this.saving = Promise.all([this.saving, write]).then(() => {})
  }

  private async scan(fh: FileHandle, size: number): Promise<void> {
    const from = this.indexed
    let r: CountedRange | null = null
    // A long pass goes to a worker, whose heap is returned when it ends; when the worker or the
    // kind's counter module cannot load, the same pass runs here.
    if (this.counterModule && size - from >= WORKER_MIN && canCountInWorker())
      r = await countInWorker({ path: this.path, from, to: size, maxLine: MAX_LINE, counter: this.counterModule }).catch(() => null)
    r ??= await countRange(fh, from, size, MAX_LINE, this.counter ?? ((line) => this.normalize(line).length))
    this.append(r)
  }

  private append(r: CountedRange): void {
    // A first count is adopted as it is.
    if (this.n === 0) return this.adopt(r)
    const need = this.n + r.n
    if (need > this.offs.length) {
      this.offs = grow(this.offs, need)
      this.lens = grow(this.lens, need)
      this.cum = grow(this.cum, need)
    }
    this.offs.set(r.offs.subarray(0, r.n), this.n)
    this.lens.set(r.lens.subarray(0, r.n), this.n)
    for (let i = 0; i < r.n; i++) this.cum[this.n + i] = this.count + r.cum[i]
    this.n = need
    this.count += r.count
    this.indexed = r.indexed
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

/**
 * One shared index per file and reader, so reconnects and parallel streams skip the indexing
 * pass; with `indexDir` the index also outlives the process.
 */
export function openTranscript(
  path: string,
  normalize: Normalizer,
  key = '',
  count?: Counter,
  store?: { dir: string; onError?(err: unknown): void },
  counterModule?: string,
): TranscriptFile {
  const id = `${key}\0${path}\0${store?.dir ?? ''}`
  return cache.get(id) ?? cache.set(id, new TranscriptFile(path, normalize, count, store && { ...store, key }, counterModule))
}

/** Drops every in-memory index (the bridge shutting down); stored ones stay on disk. */
export function forgetTranscripts(): void {
  cache.clear()
}
