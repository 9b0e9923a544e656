/**
 * One `/events` socket: the bus subscription is taken before the snapshot, the snapshot frame
 * carries the bus seq of that moment, and everything published since follows in order. A socket
 * is never sent a gap: it gets every event or it is closed.
 */
import type { Bus, BusEvent } from '../../core/bus.ts'

export interface StreamPeer {
  send(data: string): unknown
  close(code?: number, reason?: string): void
  /** Bytes queued on the socket and not yet written (crossws exposes ws's count). */
  readonly bufferedAmount?: number
}

export interface StreamOptions {
  /** `{type:'heartbeat'}` period; the spec says 20 s. */
  heartbeatMs: number
  /** Bytes queued on the socket beyond which the client counts as lagging. */
  maxBufferedBytes: number
  /** Events held back while the snapshot is built, beyond which the client counts as lagging. */
  maxPending: number
}

export const DEFAULT_STREAM: StreamOptions = { heartbeatMs: 20_000, maxBufferedBytes: 4 * 1024 * 1024, maxPending: 4096 }

export const LAG_CODE = 4000
export const LAG_REASON = 'resync: subscriber lagged'

// Every socket sends the same bytes for an event: serialize once.
const frames = new WeakMap<BusEvent, string>()
export function frameOf(ev: BusEvent): string {
  let f = frames.get(ev)
  if (f === undefined) {
    f = JSON.stringify({ source: ev.source, type: ev.type, seq: ev.seq, ts: ev.ts, payload: ev.payload })
    frames.set(ev, f)
  }
  return f
}

export interface EventStream {
  /** Ends the stream without touching the socket (it is closing already). */
  stop(): void
}

export function openEventStream(
  peer: StreamPeer,
  deps: { bus: Bus; now: () => number; snapshot: () => Promise<unknown>; onError?: (err: unknown) => void },
  opts: StreamOptions = DEFAULT_STREAM,
): EventStream {
  let phase: 'snapshot' | 'live' | 'closed' = 'snapshot'
  let pending: BusEvent[] = []

  const end = (code: number, reason: string) => {
    if (phase === 'closed') return
    stop()
    try {
      peer.close(code, reason)
    } catch {
      // already gone
    }
  }
  const lag = () => end(LAG_CODE, LAG_REASON)

  const send = (ev: BusEvent) => {
    // A peer whose socket backs up would hold memory and, worse, delay nobody but itself: drop it.
    if ((peer.bufferedAmount ?? 0) > opts.maxBufferedBytes) return lag()
    peer.send(frameOf(ev))
  }

  const unsubscribe = deps.bus.subscribe({
    name: 'events-socket',
    limit: opts.maxPending,
    deliver(ev) {
      if (phase === 'live') send(ev)
      else if (phase === 'snapshot') {
        pending.push(ev)
        if (pending.length > opts.maxPending) lag()
      }
    },
    onLag: lag,
  })
  // Read in the same tick as the subscription: no event can fall between the two.
  const baseline = deps.bus.seq

  const heartbeat = setInterval(() => {
    if (phase !== 'live') return
    if ((peer.bufferedAmount ?? 0) > opts.maxBufferedBytes) return lag()
    peer.send(JSON.stringify({ type: 'heartbeat', ts: deps.now() }))
  }, opts.heartbeatMs)
  heartbeat.unref?.()

  const stop = () => {
    phase = 'closed'
    pending = []
    clearInterval(heartbeat)
    unsubscribe()
  }

  deps.snapshot().then(
    (snapshot) => {
      if (phase !== 'snapshot') return
      peer.send(JSON.stringify({ type: 'snapshot', source: 'bridge', seq: baseline, ts: deps.now(), snapshot }))
      phase = 'live'
      const held = pending
      pending = []
      for (const ev of held) {
        if (phase !== 'live') break
        send(ev)
      }
    },
    (err) => {
      deps.onError?.(err)
      end(1011, 'snapshot failed')
    },
  )

  return { stop }
}
