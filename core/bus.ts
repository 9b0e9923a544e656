/** The in-process event bus: one seq for the process, a bounded queue per subscriber. */

// Payloads are whatever the publisher passed (herdr's event data, the bridge's own records):
// a subscriber reads the fields of the event types it filters on, each as unknown until checked.
export interface BusEvent<P = Record<string, unknown>> {
  source: 'multiplexer' | 'bridge'
  type: string
  seq: number
  ts: number
  payload: P
  /**
   * In-process plumbing (alert fan-out, dismissal bookkeeping): delivered to bus subscribers but
   * never to `/events` clients, and it takes no seq of its own (it carries the last public one),
   * so the client stream stays gap-free without it.
   */
  internal?: true
}

/** A payload field as text (an id, a status, a reason), or the fallback when it is absent or not a string or number. */
export function payloadText(ev: BusEvent, key: string, fallback: string): string {
  const v = ev.payload?.[key]
  return typeof v === 'string' || typeof v === 'number' ? String(v) : fallback
}

/**
 * What happens when a subscriber's queue is full: `unsubscribe` drops the subscriber (a stream
 * client then resyncs), `drop-oldest` discards the oldest queued event and keeps it subscribed.
 */
export type LagPolicy = 'unsubscribe' | 'drop-oldest'

export interface Subscriber {
  /** Called in publish order; an async handler holds back later events for this subscriber only. */
  deliver: (event: BusEvent) => void | Promise<void>
  /**
   * `unsubscribe`: called once when the subscriber fell `limit` events behind and was dropped.
   * `drop-oldest`: called with the number of events skipped once its queue has drained again.
   */
  onLag?: (skipped: number) => void
  /** Queue bound; default 1024 events. */
  limit?: number
  /** Default `unsubscribe`. */
  lag?: LagPolicy
  name?: string
}

export interface Bus {
  publish<P extends object>(source: BusEvent['source'], type: string, payload: P, opts?: { internal?: boolean }): BusEvent<P>
  /** Registers a subscriber; returns the unsubscribe function. */
  subscribe(sub: Subscriber): () => void
  /** The seq of the last published public event (0 before any). */
  readonly seq: number
  readonly subscriberCount: number
}

export function createBus(opts: { now?: () => number; onError?: (err: unknown, sub: Subscriber) => void } = {}): Bus {
  const now = opts.now ?? Date.now
  let seq = 0
  const subs = new Set<Slot>()

  interface Slot {
    sub: Subscriber
    queue: BusEvent[]
    running: boolean
    dropped: boolean
    skipped: number
  }

  const lagged = (slot: Slot, skipped: number) => {
    try {
      slot.sub.onLag?.(skipped)
    } catch (err) {
      opts.onError?.(err, slot.sub)
    }
  }

  const drain = async (slot: Slot) => {
    slot.running = true
    while (slot.queue.length && !slot.dropped) {
      const ev = slot.queue.shift()!
      try {
        const r = slot.sub.deliver(ev)
        if (r && typeof (r as Promise<void>).then === 'function') await r
      } catch (err) {
        opts.onError?.(err, slot.sub)
      }
    }
    slot.running = false
    if (slot.skipped && !slot.dropped) {
      lagged(slot, slot.skipped)
      slot.skipped = 0
    }
  }

  return {
    publish(source, type, payload, how) {
      const ev: BusEvent<typeof payload> = how?.internal ? { source, type, seq, ts: now(), payload, internal: true } : { source, type, seq: ++seq, ts: now(), payload }
      for (const slot of subs) {
        if (slot.queue.length >= (slot.sub.limit ?? 1024)) {
          if (slot.sub.lag === 'drop-oldest') {
            slot.queue.shift()
            slot.skipped++
          } else {
            // Dropping the laggard keeps everyone else fast and memory bounded; it resyncs.
            slot.dropped = true
            slot.queue.length = 0
            subs.delete(slot)
            lagged(slot, 0)
            continue
          }
        }
        slot.queue.push(ev as BusEvent) // a subscriber reads any publisher's payload as fields to check
      }
      // Queue for everyone before delivering to anyone: a handler that publishes re-entrantly
      // must not get its event to a later subscriber ahead of this one.
      for (const slot of [...subs]) if (!slot.running && slot.queue.length) void drain(slot)
      return ev
    },
    subscribe(sub) {
      const slot: Slot = { sub, queue: [], running: false, dropped: false, skipped: 0 }
      subs.add(slot)
      return () => {
        slot.dropped = true
        slot.queue.length = 0
        subs.delete(slot)
      }
    },
    get seq() {
      return seq
    },
    get subscriberCount() {
      return subs.size
    },
  }
}
