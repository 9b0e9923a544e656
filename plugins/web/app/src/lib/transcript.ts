import { isJsonObject } from './json.ts'

/** Client state of one /agent-transcript stream (frames: docs/api-websockets.md). */
export interface Entry {
  id: string
  seq: number
  role: string
  kind: string
  text?: string
  ts?: string
  tool?: { id: string; name: string; title?: string; subtitle?: string; command?: string; file?: string; diff?: string; input_summary?: string }
  result?: { for_id: string; ok?: boolean; output_summary?: string; diff?: string; truncated?: boolean }
  parsed?: boolean
}

export interface TranscriptState {
  sessionId: string
  /** Entries by seq, kept sorted ascending. */
  entries: Entry[]
  /** tool_result entries by the id of the call they answer (latest wins). */
  results: Map<string, Entry>
  oldest: number
  hasOlder: boolean
  loadingOlder: boolean
  backlogDone: boolean
  /** Bumped on every change, for cheap re-render checks. */
  version: number
}

export const emptyTranscript = (): TranscriptState => ({
  sessionId: '',
  entries: [],
  results: new Map(),
  oldest: 0,
  hasOlder: false,
  loadingOlder: false,
  backlogDone: false,
  version: 0,
})

/** Applies one server frame; returns the state to keep (a new object after a session reset). */
export function transcriptFrame(st: TranscriptState, f: unknown): TranscriptState {
  if (!isJsonObject(f)) return st
  switch (f.type) {
    case 'session_changed':
      return { ...emptyTranscript(), version: st.version + 1 }
    case 'hello': {
      const sid = typeof f.session_id === 'string' || typeof f.session_id === 'number' ? String(f.session_id) : ''
      const next = sid && st.sessionId && sid !== st.sessionId ? { ...emptyTranscript() } : st
      next.sessionId = sid
      next.oldest = Number(f.oldest_loaded_seq) || 0
      next.hasOlder = f.has_older === true
      next.version = st.version + 1
      return next
    }
    case 'entry': {
      const e = f.entry as Entry
      if (!e || !(e.seq > 0)) return st
      if (e.kind === 'tool_result' && e.result?.for_id) st.results.set(e.result.for_id, e)
      if (!st.entries.some((x) => x.seq === e.seq)) insertSorted(st.entries, e)
      st.version++
      return st
    }
    case 'backlog_complete':
      st.backlogDone = true
      st.version++
      return st
    case 'page_complete':
      if (Number(f.oldest_loaded_seq) > 0) st.oldest = Number(f.oldest_loaded_seq)
      st.hasOlder = f.has_older === true
      st.loadingOlder = false
      st.version++
      return st
    default:
      return st
  }
}

function insertSorted(list: Entry[], e: Entry): void {
  let i = list.length
  while (i > 0 && list[i - 1].seq > e.seq) i--
  list.splice(i, 0, e)
}

/** The `load_older` frame to send, or null when there is nothing older or a page is in flight. */
export function olderRequest(st: TranscriptState): string | null {
  if (!st.hasOlder || st.loadingOlder || st.oldest <= 1) return null
  st.loadingOlder = true
  return JSON.stringify({ type: 'load_older', before_seq: st.oldest, limit: 150 })
}
