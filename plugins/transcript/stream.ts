/**
 * One /agent-transcript connection: hello, newest page, backlog_complete, then a polled live tail,
 * load_older pages, session rotation and roster updates. Every step runs on one queue so frames
 * never interleave mid-sequence.
 */
import { parseJsonRecord, type Entry, type RosterRow } from '../../lib/transcript/entry.ts'
import type { Located, TranscriptReader, TranscriptSource } from '../../lib/transcript/locate.ts'
import { openTranscript } from './transcript-file.ts'
import { newestPage, olderPage } from '../../lib/transcript/paging.ts'

export const PROTOCOL = 5
export const TAIL_MS = 250
export const SESSION_MS = 2000
export const ROSTER_MS = 3000
/** Live entries are read in slices so a burst of appends never loads unbounded memory. */
const LIVE_SLICE = 500

export interface Source {
  kind: string
  reader: TranscriptReader
  /** The parent session (the roster and session id belong to it). */
  session: Located
}

export interface StreamOptions extends Source {
  pane: string
  /** Set when streaming a subagent's transcript: its id and file. */
  subagent?: { id: string; path: string }
  send(frame: object): void
  close(code: number, reason: string): void
  /** The pane's current source, or null when it cannot be opened now (rotation check). */
  relocate?(): Promise<Source | null>
  onError?(err: unknown): void
  /** Directory where line indexes of large files are kept across restarts. */
  indexDir?: string
}

export interface LoadOlder {
  before_seq: number
  limit?: number
}

/** The only inbound frame acted on; anything else is null (and closes the socket). */
export function parseInbound(data: unknown): LoadOlder | null {
  if (typeof data !== 'string') return null
  const o = parseJsonRecord(data)
  if (o?.type !== 'load_older') return null
  const { before_seq, limit } = o
  const int = (n: unknown): n is number => Number.isSafeInteger(n)
  if (!int(before_seq)) return null
  if (limit === undefined || limit === null) return { before_seq }
  return int(limit) ? { before_seq, limit } : null
}

/** Roster identity for change detection: age (last_activity_ts) alone never counts. */
export const rosterSignature = (rows: RosterRow[]) => JSON.stringify(rows.map((r) => [r.agent_id, r.done, r.tool_use_id, r.agent_type, r.description, r.spawn_depth]))

export function createTranscriptStream(opts: StreamOptions) {
  let source: Source = { kind: opts.kind, reader: opts.reader, session: opts.session }
  let file!: TranscriptSource
  /** Newest seq sent as backlog or tail. */
  let sent = 0
  let rosterSig = ''
  let stopped = false
  let chain: Promise<void> = Promise.resolve()
  const pending = new Set<string>()
  const timers: NodeJS.Timeout[] = []

  const send = (frame: object) => {
    if (!stopped) opts.send(frame)
  }
  /** Runs `fn` after everything queued; a named step is queued at most once at a time. */
  const enqueue = (fn: () => Promise<void>, name?: string) => {
    if (stopped || (name && pending.has(name))) return chain
    if (name) pending.add(name)
    chain = chain
      .then(() => (stopped ? undefined : fn()))
      .catch((err) => opts.onError?.(err))
      .finally(() => name && pending.delete(name))
    return chain
  }

  const filePath = () => opts.subagent?.path ?? source.session.path
  const store = opts.indexDir ? { dir: opts.indexDir, onError: opts.onError } : undefined

  async function roster(): Promise<RosterRow[] | null> {
    if (!source.reader.roster) return []
    try {
      return await source.reader.roster(source.session)
    } catch (err) {
      // Discovery failure never stops the transcript stream.
      opts.onError?.(err)
      return null
    }
  }

  /** A JSONL reader's file is indexed here; a store-backed reader opens its own source. */
  const openFile = (): TranscriptSource =>
    source.reader.open
      ? source.reader.open(source.session, filePath())
      : openTranscript(filePath(), source.reader.normalize!, source.kind, source.reader.count, store, source.reader.counter)

  async function openSession(): Promise<void> {
    file = openFile()
    await file.refresh()
    const rows = (await roster()) ?? []
    const total = file.total
    const page = newestPage(file.first, total)
    const entries = await file.read(page.from, page.to)
    const oldest = entries.length ? entries[0].seq : 0
    const hasOlder = entries.length ? oldest > file.first : false
    const hello: Record<string, unknown> = {
      type: 'hello',
      protocol: PROTOCOL,
      pane: opts.pane,
      agent_kind: source.kind,
      session_id: source.session.sessionId,
      backlog_count: entries.length,
      total,
      has_more: hasOlder,
      oldest_loaded_seq: oldest,
      has_older: hasOlder,
    }
    if (opts.subagent) hello.subagent = opts.subagent.id
    if (rows.length) hello.subagents = rows
    send(hello)
    for (const entry of entries) send({ type: 'entry', live: false, entry })
    send({ type: 'backlog_complete', count: entries.length, has_more: hasOlder })
    sent = total
    rosterSig = rosterSignature(rows)
  }

  async function tail(): Promise<void> {
    await file.refresh()
    // After a truncation the index realigned past what was sent: continue, never replay.
    if (sent < file.first - 1) sent = file.first - 1
    while (!stopped && file.total > sent) {
      const to = Math.min(file.total, sent + LIVE_SLICE)
      const entries: Entry[] = await file.read(sent + 1, to)
      for (const entry of entries) send({ type: 'entry', live: true, entry })
      sent = to
    }
  }

  async function loadOlder(req: LoadOlder): Promise<void> {
    // Never page past what this socket has seen: newer entries come as the tail.
    const page = olderPage(file.first, Math.min(sent, file.total), req.before_seq, req.limit)
    const entries = page.count ? await file.read(page.from, page.to) : []
    for (const entry of entries) send({ type: 'entry', live: false, entry })
    const oldest = entries.length ? entries[0].seq : 0
    send({ type: 'page_complete', requested_before_seq: req.before_seq, oldest_loaded_seq: oldest, has_older: entries.length ? oldest > file.first : false })
  }

  async function rotate(): Promise<void> {
    if (!opts.relocate) return
    const next = await opts.relocate().catch(() => null)
    if (!next || stopped) return
    if (next.session.sessionId !== source.session.sessionId) {
      send({ type: 'session_changed', pane: opts.pane, from: source.session.sessionId, to: next.session.sessionId })
      source = next
      await openSession()
    } else if (next.session.path !== source.session.path && !file.exists) {
      // Same session found at another place before anything was written: follow it silently.
      source = next
      file = openFile()
      sent = file.first - 1
    }
  }

  async function rosterTick(): Promise<void> {
    const rows = await roster()
    if (rows === null) return
    const sig = rosterSignature(rows)
    if (sig === rosterSig) return
    rosterSig = sig
    send({ type: 'subagents', pane: opts.pane, subagents: rows })
  }

  return {
    start(): Promise<void> {
      const first = enqueue(openSession)
      timers.push(setInterval(() => void enqueue(tail, 'tail'), TAIL_MS))
      if (!opts.subagent) timers.push(setInterval(() => void enqueue(rotate, 'rotate'), SESSION_MS))
      timers.push(setInterval(() => void enqueue(rosterTick, 'roster'), ROSTER_MS))
      return first
    },
    message(data: unknown): void {
      const req = parseInbound(data)
      if (!req) {
        this.stop()
        opts.close(1000, 'only load_older frames are accepted')
        return
      }
      void enqueue(() => loadOlder(req))
    },
    stop(): void {
      stopped = true
      for (const t of timers) clearInterval(t)
      timers.length = 0
    },
  }
}
