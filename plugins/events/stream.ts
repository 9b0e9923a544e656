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
  /** `{type:'heartbeat'}` period, 20 s by default (clients reconnect after 50 s of silence). */
  heartbeatMs: number
  /** Bytes queued on the socket beyond which further events wait in the subscriber's queue. */
  maxBufferedBytes: number
  /** Events a subscriber may have waiting (snapshot in flight or socket backed up); one more drops it. */
  maxPending: number
}

export const DEFAULT_STREAM: StreamOptions = { heartbeatMs: 20_000, maxBufferedBytes: 1024 * 1024, maxPending: 1024 }

/** How often a backed-up socket is looked at again. */
const RETRY_WRITE_MS = 10

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
  // Events accepted for this socket and not yet handed to it. Bounded: past maxPending the
  // subscriber is dropped, so a stalled client costs a fixed amount of memory and nobody waits.
  let queue: BusEvent[] = []
  let retry: NodeJS.Timeout | undefined

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
  const backedUp = () => (peer.bufferedAmount ?? 0) > opts.maxBufferedBytes

  const pump = () => {
    if (phase !== 'live') return
    let i = 0
    while (i < queue.length && !backedUp()) peer.send(frameOf(queue[i++]))
    if (i > 0) queue = i === queue.length ? [] : queue.slice(i)
    if (queue.length && !retry) {
      retry = setTimeout(() => {
        retry = undefined
        pump()
      }, RETRY_WRITE_MS)
    }
  }

  const unsubscribe = deps.bus.subscribe({
    name: 'events-socket',
    deliver(ev) {
      // Internal plumbing never leaves the process (it took no seq, so nothing is skipped).
      if (phase === 'closed' || ev.internal) return
      queue.push(ev)
      if (queue.length > opts.maxPending) return lag()
      if (queue.length === 1) pump()
    },
    onLag: lag,
  })
  // Read in the same tick as the subscription: no event can fall between the two.
  const baseline = deps.bus.seq

  const heartbeat = setInterval(() => {
    // A socket with events waiting is not idle; the events themselves prove it alive.
    if (phase === 'live' && !queue.length) peer.send(JSON.stringify({ type: 'heartbeat', ts: deps.now() }))
  }, opts.heartbeatMs)
  heartbeat.unref?.()

  const stop = () => {
    phase = 'closed'
    queue = []
    clearInterval(heartbeat)
    clearTimeout(retry)
    unsubscribe()
  }

  deps.snapshot().then(
    (snapshot) => {
      if (phase !== 'snapshot') return
      peer.send(JSON.stringify({ type: 'snapshot', source: 'bridge', seq: baseline, ts: deps.now(), snapshot }))
      phase = 'live'
      pump()
    },
    (err) => {
      deps.onError?.(err)
      end(1011, 'snapshot failed')
    },
  )

  return { stop }
}
