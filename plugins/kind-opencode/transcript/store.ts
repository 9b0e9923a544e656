/**
 * An opencode session as an append-only log of finished entries, rebuilt by polling: messages
 * that are complete and fully emitted are never read again. The records come from one of
 * opencode's two stores (`SessionRecords`): the JSON tree here, read-only:
 * `<data>/opencode/storage/session/<project>/<session>.json`, `message/<session>/<message>.json`,
 * `part/<message>/<part>.json` (ids sort by creation); or its SQLite database (sqlite.ts).
 * Nothing here writes.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { field, isObj, SAFE_NAME, str, type Entry, type RawEntry, type TranscriptSource } from '../../../lib/kit.ts'
import { partEntries, type StoredMessage } from './normalize.ts'

/** A record file larger than this is not parsed (opencode's are a few KiB). */
const MAX_RECORD = 8 << 20

export async function readRecord(path: string): Promise<Record<string, unknown> | null> {
  try {
    const st = await stat(path)
    if (!st.isFile() || st.size > MAX_RECORD) return null
    const o = JSON.parse(await readFile(path, 'utf8'))
    return isObj(o) ? o : null
  } catch {
    return null
  }
}

async function ids(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -5))
      .filter((id) => SAFE_NAME.test(id))
      .sort()
  } catch {
    return []
  }
}

/** A session's records, whichever store holds them. */
export interface SessionRecords {
  /** Message ids in creation order. */
  messages(): Promise<string[]>
  message(id: string): Promise<Record<string, unknown> | null>
  /** The message's parts in creation order; null for a part that could not be read yet. */
  parts(messageId: string): Promise<(Record<string, unknown> | null)[]>
}

/** The JSON tree's records of one session. */
export function jsonRecords(storage: string, sessionId: string): SessionRecords {
  const messageDir = join(storage, 'message', sessionId)
  return {
    messages: () => ids(messageDir),
    message: (mid) => readRecord(join(messageDir, `${mid}.json`)),
    async parts(mid) {
      const out: (Record<string, unknown> | null)[] = []
      for (const pid of await ids(join(storage, 'part', mid))) {
        const part = await readRecord(join(storage, 'part', mid, `${pid}.json`))
        out.push(part && { ...part, id: str(part.id) ?? pid })
      }
      return out
    },
  }
}

export class OpencodeSession implements TranscriptSource {
  private log: RawEntry[] = []
  private emitted = new Set<string>()
  /** Messages complete and fully emitted: never read again. */
  private settled = new Set<string>()
  private present = false
  private refreshing: Promise<void> | null = null

  constructor(private readonly records: SessionRecords) {}

  get total(): number {
    return this.log.length
  }
  get first(): number {
    return 1
  }
  get exists(): boolean {
    return this.present
  }

  refresh(): Promise<void> {
    return (this.refreshing ??= this.scan().finally(() => (this.refreshing = null)))
  }

  private async scan(): Promise<void> {
    const messages = await this.records.messages()
    if (messages.length) this.present = true
    for (const mid of messages) {
      if (this.settled.has(mid)) continue
      const m = await this.records.message(mid)
      if (!m || (m.role !== 'user' && m.role !== 'assistant')) continue
      const created = field(m.time, 'created')
      const msg: StoredMessage = {
        id: mid,
        role: m.role,
        created: typeof created === 'number' ? created : undefined,
        completed: typeof field(m.time, 'completed') === 'number' || !!m.error,
      }
      let open = !msg.completed && msg.role === 'assistant'
      for (const part of await this.records.parts(mid)) {
        if (!part) {
          open = true
          continue
        }
        const entries = partEntries(msg, part)
        for (const { key, entry } of entries) {
          if (this.emitted.has(key)) continue
          this.emitted.add(key)
          this.log.push(entry)
        }
        if (part.type === 'tool' && field(part.state, 'status') !== 'completed' && field(part.state, 'status') !== 'error') open = true
      }
      if (!open) this.settled.add(mid)
    }
  }

  async read(from: number, to: number): Promise<Entry[]> {
    const out: Entry[] = []
    for (let seq = Math.max(1, from); seq <= Math.min(to, this.log.length); seq++) {
      const e = this.log[seq - 1]
      out.push({ ...e, id: e.id || `seq-${seq}`, seq })
    }
    return out
  }
}

const sessions = new Map<string, OpencodeSession>()
const CACHE_MAX = 16

/**
 * One log per session, shared by every stream, so seqs stay the same across reconnects. `store`
 * is the JSON tree's `storage/` folder or the database file.
 */
export function openSession(store: string, sessionId: string, records: () => SessionRecords = () => jsonRecords(store, sessionId)): OpencodeSession {
  const key = `${store}\0${sessionId}`
  let s = sessions.get(key)
  if (s) sessions.delete(key)
  else s = new OpencodeSession(records())
  sessions.set(key, s)
  while (sessions.size > CACHE_MAX) sessions.delete(sessions.keys().next().value!)
  return s
}
