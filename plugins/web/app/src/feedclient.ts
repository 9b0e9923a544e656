import { Api, errStatus } from './lib/api.ts'
import { backoff, feedFrame, SILENCE_MS, type FeedState } from './lib/feed.ts'
import { unwrapSnapshot, type Snapshot } from './lib/inbox.ts'
import { jsonObject, type JsonObject } from './lib/json.ts'
import type { SeenMap } from './lib/triage.ts'

/** The last snapshot of each bridge, for reading while offline (shown marked stale). Not a secret. */
const CACHE = (b: { key: string; url: string }) => `herdr-bridge.snapshot.v1.${b.key}.${b.url}`

/**
 * What the user can act on: `offline` (the bridge does not answer: is it running, is the address
 * reachable from here), `unpaired` (it refused this device's token: pair again), `no-herdr` (the
 * bridge answers but reaches no herdr session; `error` carries the bridge's own reason).
 */
export type FeedStatus = 'connecting' | 'live' | 'offline' | 'unpaired' | 'no-herdr'

/**
 * One bridge's /events connection: seeds from the snapshot frame, re-reads GET /snapshot
 * (debounced) after deltas so ranks stay the bridge's, and reconnects on a seq gap, on
 * `multiplexer_resync`, on 50 s of silence or when the socket drops.
 */
export class FeedClient {
  snapshot: Snapshot = {}
  status: FeedStatus = 'connecting'
  error = ''
  /** When the feed was last live (ms): what a stale view says it shows. 0 = never in this page. */
  lastLive = 0
  /** The snapshot shown comes from the cache of an earlier visit, not from the bridge. */
  cached = false
  /** "Seen" marks shared by this user's devices (GET /seen, then `seen_changed` events). */
  seen: SeenMap = {}
  private ws: WebSocket | null = null
  private state: FeedState = { seq: -1 }
  private attempt = 0
  private silence: ReturnType<typeof setTimeout> | undefined
  private retry: ReturnType<typeof setTimeout> | undefined
  private refetchTimer: ReturnType<typeof setTimeout> | undefined
  private listeners = new Set<() => void>()
  private deltaListeners = new Set<(f: JsonObject) => void>()
  private closed = false

  constructor(readonly api: Api) {
    this.loadCache()
    this.connect()
  }

  private loadCache(): void {
    try {
      const raw = JSON.parse(localStorage.getItem(CACHE(this.api.bridge)) ?? 'null')
      if (raw?.snapshot) {
        this.snapshot = raw.snapshot
        this.lastLive = typeof raw.at === 'number' ? raw.at : 0
        this.cached = true
      }
    } catch {
      /* no cache */
    }
  }

  private saveCache(): void {
    try {
      localStorage.setItem(CACHE(this.api.bridge), JSON.stringify({ at: Date.now(), snapshot: this.snapshot }))
    } catch {
      /* full or unavailable: the cache is optional */
    }
  }

  /** Whether what is shown may be out of date: not live now (offline, refused, connecting after a drop). */
  get stale(): boolean {
    return this.status !== 'live' && (this.cached || this.lastLive > 0)
  }

  private async loadSeen(): Promise<void> {
    try {
      const r = await this.api.get('/seen')
      this.seen = r?.seen ?? {}
      this.emit()
    } catch {
      /* a bridge without the seen plugin: nothing is marked */
    }
  }

  /** Marks an agent seen up to its state change, on every device of this user (POST /seen). */
  markSeen(pane: string, seq: number): void {
    if ((this.seen[pane]?.seq ?? -1) >= seq) return
    this.seen = { ...this.seen, [pane]: { seq, at: Date.now() } }
    this.emit()
    void this.api.post('/seen', { pane, seq }).catch(() => {})
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /** Every delta frame (for alerts and open views that refresh on their pane's changes). */
  onDelta(fn: (f: JsonObject) => void): () => void {
    this.deltaListeners.add(fn)
    return () => this.deltaListeners.delete(fn)
  }

  private emit(): void {
    for (const l of this.listeners) l()
  }

  private connect(): void {
    if (this.closed) return
    clearTimeout(this.retry)
    this.state = { seq: -1 }
    this.status = this.status === 'live' ? 'connecting' : this.status
    const ws = new WebSocket(this.api.ws('/events'))
    this.ws = ws
    this.armSilence()
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return
      this.armSilence()
      // Heartbeats count: "stale since" is the last moment the bridge was heard from.
      if (this.status === 'live') this.lastLive = Date.now()
      const act = feedFrame(this.state, ev.data)
      if (act.do === 'seed') {
        this.snapshot = unwrapSnapshot(act.snapshot)
        this.status = 'live'
        this.error = ''
        this.attempt = 0
        this.cached = false
        this.lastLive = Date.now()
        this.saveCache()
        this.emit()
        void this.loadSeen()
      } else if (act.do === 'refetch') {
        const f = act.frame
        const p = jsonObject(f.payload)
        if (f.source === 'bridge' && f.type === 'seen_changed' && typeof p?.pane === 'string') {
          const had = this.seen[p.pane]?.seq ?? -1
          if (typeof p.seq === 'number' && p.seq > had) this.seen = { ...this.seen, [p.pane]: { seq: p.seq, at: Number(p.at) } }
          this.emit()
          return
        }
        for (const l of this.deltaListeners) l(act.frame)
        this.scheduleRefetch()
      } else if (act.do === 'reconnect') this.reconnect(0)
    }
    let failed = false
    ws.onclose = (ev) => {
      if (this.ws !== ws) return
      this.ws = null
      if (ev.code === 1008 || ev.code === 4401) return this.setUnpaired()
      // Closed before any snapshot (herdr down: 1011), or dropped while live: find out why.
      if (!failed && (this.status !== 'live' || ev.code === 1011)) void this.diagnose()
      this.reconnect(backoff(this.attempt++))
    }
    ws.onerror = () => {
      // The close that follows reconnects; a 401 before the upgrade shows up only as an error.
      if (this.ws === ws && this.status !== 'live') {
        failed = true
        void this.diagnose()
      }
    }
  }

  /** Why there is no feed: the bridge unreachable, the token refused, or herdr not reachable. */
  private async diagnose(): Promise<void> {
    if (this.closed) return
    const set = (status: FeedStatus, error: string) => {
      if (this.closed || this.status === 'live') return
      this.status = status
      this.error = error
      this.emit()
    }
    try {
      await this.api.get('/info')
    } catch (err) {
      if (errStatus(err) === 401) return this.setUnpaired()
      return set(
        'offline',
        errStatus(err) === 0
          ? `cannot reach ${this.api.bridge.url}: is the bridge running, and is this address reachable from this device?`
          : err instanceof Error
            ? err.message
            : String(err),
      )
    }
    const ready = await this.api.readiness()
    if (!ready.ok) set('no-herdr', `the bridge is up but reaches no herdr session: ${ready.reason}`)
  }

  /** Tries again now (the Retry button) instead of waiting out the backoff. */
  retryNow(): void {
    if (this.closed) return
    this.attempt = 0
    this.reconnect(0)
  }

  private setUnpaired(): void {
    this.status = 'unpaired'
    this.error = 'this device is no longer paired with the bridge'
    this.closed = true
    this.ws?.close()
    this.emit()
  }

  /** Forgets the cached snapshot (the bridge was forgotten on this device). */
  dropCache(): void {
    localStorage.removeItem(CACHE(this.api.bridge))
  }

  private reconnect(delay: number): void {
    const ws = this.ws
    this.ws = null
    try {
      ws?.close(1000)
    } catch {
      /* already closing */
    }
    clearTimeout(this.silence)
    if (this.closed) return
    if (this.status === 'live') {
      this.status = 'connecting'
      this.emit()
    }
    this.retry = setTimeout(() => this.connect(), delay)
  }

  private armSilence(): void {
    clearTimeout(this.silence)
    this.silence = setTimeout(() => this.reconnect(0), SILENCE_MS)
  }

  private scheduleRefetch(): void {
    clearTimeout(this.refetchTimer)
    this.refetchTimer = setTimeout(() => void this.refetch(), 250)
  }

  async refetch(): Promise<void> {
    try {
      this.snapshot = unwrapSnapshot(await this.api.get('/snapshot'))
      this.lastLive = Date.now()
      this.saveCache()
      this.emit()
    } catch (err) {
      if (errStatus(err) === 401) this.setUnpaired()
    }
  }

  close(): void {
    this.closed = true
    clearTimeout(this.silence)
    clearTimeout(this.retry)
    clearTimeout(this.refetchTimer)
    this.ws?.close(1000)
    this.ws = null
  }
}
