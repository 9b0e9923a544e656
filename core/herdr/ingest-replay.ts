/**
 * The replay window after a (re)connect (core/herdr/ingest.ts): herdr replays its event ring one
 * event per tick, so the window ends once the stream has been quiet for `settleMs`, or after
 * `settleMaxMs` at most. Lifecycle events inside it are dropped and counted.
 */
export function createReplayWindow(opts: { settleMs: number; settleMaxMs: number; onEnd: (dropped: number) => void }) {
  let open = false
  let dropped = 0
  let quiet: NodeJS.Timeout | undefined
  let max: NodeJS.Timeout | undefined
  const clear = () => {
    open = false
    clearTimeout(quiet)
    clearTimeout(max)
  }
  const end = () => {
    if (!open) return
    clear()
    opts.onEnd(dropped)
  }
  return {
    get open() {
      return open
    },
    start() {
      open = true
      dropped = 0
      quiet = setTimeout(end, opts.settleMs)
      max = setTimeout(end, opts.settleMaxMs)
    },
    /** An event arrived: the replay has no pause, so the quiet time starts over. */
    touch() {
      if (!open) return
      clearTimeout(quiet)
      quiet = setTimeout(end, opts.settleMs)
    },
    drop() {
      dropped++
    },
    /** Closes the window without ending it (the connection went); says how many it dropped. */
    abort(): number {
      const was = open ? dropped : 0
      clear()
      return was
    },
  }
}
