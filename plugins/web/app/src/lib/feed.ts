/**
 * The /events state machine, kept free of sockets and timers so it can be tested: the caller
 * feeds it frames and carries out the action it returns.
 */
import { isJsonObject, type JsonObject } from './json.ts'

export interface FeedState {
  /** Last seq seen on this connection; -1 before the snapshot frame. */
  seq: number
}

export type FeedAction = { do: 'seed'; snapshot: unknown } | { do: 'refetch'; frame: JsonObject } | { do: 'reconnect'; why: string } | { do: 'nothing' }

export const SILENCE_MS = 50_000

export function feedFrame(state: FeedState, raw: unknown): FeedAction {
  if (typeof raw !== 'string') return { do: 'nothing' }
  let f: unknown
  try {
    f = JSON.parse(raw)
  } catch {
    return { do: 'nothing' }
  }
  if (!isJsonObject(f)) return { do: 'nothing' }
  if (f.type === 'heartbeat') return { do: 'nothing' }
  if ('snapshot' in f) {
    state.seq = typeof f.seq === 'number' ? f.seq : -1
    return { do: 'seed', snapshot: f.snapshot }
  }
  if (typeof f.seq === 'number') {
    if (state.seq >= 0 && f.seq > state.seq + 1) return { do: 'reconnect', why: `missed events ${state.seq + 1}…${f.seq - 1}` }
    state.seq = Math.max(state.seq, f.seq)
  }
  if (f.source === 'bridge' && f.type === 'multiplexer_resync') return { do: 'reconnect', why: 'multiplexer resync' }
  return { do: 'refetch', frame: f }
}

/** 1 s, 2 s, 4 s, then 8 s between attempts. */
export const backoff = (attempt: number): number => Math.min(8000, 1000 * 2 ** Math.max(0, attempt))
