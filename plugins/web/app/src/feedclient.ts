import { Api } from './lib/api.ts'
import { backoff, feedFrame, SILENCE_MS, type FeedState } from './lib/feed.ts'
import { unwrapSnapshot, type Snapshot } from './lib/inbox.ts'

export type FeedStatus = 'connecting' | 'live' | 'offline' | 'unpaired'

/**
 * One bridge's /events connection: seeds from the snapshot frame, re-reads GET /snapshot
 * (debounced) after deltas so ranks stay the bridge's, and reconnects on a seq gap, on
 * `multiplexer_resync`, on 50 s of silence or when the socket drops.
 */
export class FeedClient {
  snapshot: Snapshot = {}
  status: FeedStatus = 'connecting'
  error = ''
  private ws: WebSocket | null = null
  private state: FeedState = { seq: -1 }
  private attempt = 0
  private silence: ReturnType<typeof setTimeout> | undefined
  private retry: ReturnType<typeof setTimeout> | undefined
  private refetchTimer: ReturnType<typeof setTimeout> | undefined
  private listeners = new Set<() => void>()
  private deltaListeners = new Set<(f: any) => void>()
  private closed = false

  constructor(readonly api: Api) {
    this.connect()
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /** Every delta frame (for alerts and open views that refresh on their pane's changes). */
  onDelta(fn: (f: any) => void): () => void {
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
      const act = feedFrame(this.state, ev.data)
      if (act.do === 'seed') {
        this.snapshot = unwrapSnapshot(act.snapshot)
        this.status = 'live'
        this.error = ''
        this.attempt = 0
        this.emit()
      } else if (act.do === 'refetch') {
        for (const l of this.deltaListeners) l(act.frame)
        this.scheduleRefetch()
      } else if (act.do === 'reconnect') this.reconnect(0)
    }
    ws.onclose = (ev) => {
      if (this.ws !== ws) return
      this.ws = null
      if (ev.code === 1008 || ev.code === 4401) this.setUnpaired()
      else this.reconnect(backoff(this.attempt++))
    }
    ws.onerror = () => {
      // The close that follows decides; a 401 before the upgrade shows up only as an error.
      if (this.ws === ws && this.status !== 'live') void this.checkAuth()
    }
  }

  private async checkAuth(): Promise<void> {
    try {
      await this.api.get('/info')
    } catch (err: any) {
      if (err?.status === 401) this.setUnpaired()
      else {
        this.error = err?.message ?? String(err)
        this.status = 'offline'
        this.emit()
      }
    }
  }

  private setUnpaired(): void {
    this.status = 'unpaired'
    this.error = 'this device is no longer paired with the bridge'
    this.closed = true
    this.ws?.close()
    this.emit()
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
      this.emit()
    } catch (err: any) {
      if (err?.status === 401) this.setUnpaired()
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
