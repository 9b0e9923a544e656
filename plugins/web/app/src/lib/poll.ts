/**
 * Polls `read` one call at a time: `everyMs` after each call ends (never on a fixed clock, so a
 * slow bridge is not asked again before it answered), and at once on `now()`. A `now()` during a
 * call runs one more right after it; every `now()` meanwhile shares that one. A browser holds six
 * connections per origin, so overlapping polls would queue behind each other (and behind every
 * other request of the page) on a slow bridge.
 */
export interface Poller {
  /** Reads now, or right after the read in flight; resolves when that read ends. */
  now(): Promise<void>
  stop(): void
}

export function poller(read: () => Promise<unknown>, everyMs: number): Poller {
  let timer: ReturnType<typeof setTimeout> | undefined
  let inFlight: Promise<void> | null = null
  let queued: Promise<void> | null = null
  let stopped = false

  const once = async (): Promise<void> => {
    clearTimeout(timer)
    try {
      await read()
    } catch {
      /* the reader shows its own errors; the next poll tries again */
    }
    inFlight = null
    if (!stopped && !queued) timer = setTimeout(() => void now(), everyMs)
  }

  function now(): Promise<void> {
    if (stopped) return Promise.resolve()
    if (!inFlight) return (inFlight = once())
    queued ??= inFlight.then(() => {
      queued = null
      return now()
    })
    return queued
  }

  return {
    now,
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}
