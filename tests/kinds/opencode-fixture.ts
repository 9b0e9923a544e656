/** opencode's JSON store as opencode writes it (session / message / part files), for tests. */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const T0 = Date.UTC(2025, 8, 1, 12, 0, 0)

export class OpencodeStore {
  private n = 0
  constructor(
    readonly storage: string,
    readonly sessionId: string,
  ) {}

  /** ids that sort by creation, as opencode's do */
  private next(prefix: string) {
    return `${prefix}_${String(++this.n).padStart(6, '0')}`
  }

  session(directory: string, updated = T0, extra: Record<string, unknown> = {}) {
    const dir = join(this.storage, 'session', 'proj1')
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, `${this.sessionId}.json`),
      JSON.stringify({ id: this.sessionId, projectID: 'proj1', directory, title: 'Cache work', version: '0.9.0', time: { created: T0, updated }, ...extra }),
    )
  }

  message(role: 'user' | 'assistant', s: number, completed = true, id = this.next('msg')): string {
    const dir = join(this.storage, 'message', this.sessionId)
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, `${id}.json`),
      JSON.stringify({ id, sessionID: this.sessionId, role, time: { created: T0 + s * 1000, ...(completed ? { completed: T0 + s * 1000 + 500 } : {}) } }),
    )
    return id
  }

  part(messageId: string, part: Record<string, unknown>, id = this.next('prt')): string {
    const dir = join(this.storage, 'part', messageId)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, `${id}.json`), JSON.stringify({ id, sessionID: this.sessionId, messageID: messageId, ...part }))
    return id
  }

  /** A user prompt and an assistant turn with reasoning, a bash call and an edit. */
  sampleTurn(s = 0) {
    const u = this.message('user', s)
    this.part(u, { type: 'text', text: 'Raise the cache TTL' })
    this.part(u, { type: 'text', text: '<system-reminder>plan mode</system-reminder>', synthetic: true })
    const a = this.message('assistant', s + 1)
    this.part(a, { type: 'step-start' })
    this.part(a, { type: 'reasoning', text: 'Find the constant first.', time: { start: T0 + (s + 1) * 1000, end: T0 + (s + 2) * 1000 } })
    this.part(a, {
      type: 'tool',
      callID: 'call_b1',
      tool: 'bash',
      state: {
        status: 'completed',
        input: { command: 'rg -n ttl src', description: 'Find the TTL' },
        output: 'src/cache.ts:1:const ttl = 10\n',
        title: 'rg -n ttl src',
        time: { start: T0 + (s + 2) * 1000, end: T0 + (s + 3) * 1000 },
      },
    })
    this.part(a, {
      type: 'tool',
      callID: 'call_e1',
      tool: 'edit',
      state: {
        status: 'completed',
        input: { filePath: '/w/src/cache.ts', oldString: 'const ttl = 10', newString: 'const ttl = 60' },
        output: '',
        title: 'src/cache.ts',
        time: { start: T0 + (s + 3) * 1000, end: T0 + (s + 4) * 1000 },
      },
    })
    this.part(a, { type: 'text', text: 'The TTL is now 60 seconds.', time: { start: T0 + (s + 4) * 1000, end: T0 + (s + 5) * 1000 } })
    this.part(a, { type: 'step-finish', reason: 'stop' })
    return { user: u, assistant: a }
  }
}

/** Whether this runtime has node:sqlite (Node 22.5 and later), which opencode's database needs. */
export const HAS_SQLITE = (await import('../../lib/node-support.ts').then((m) => m.loadSqlite())) !== undefined

/**
 * The one-line 404 for an opencode whose current store is a database file the tests wrote as a
 * placeholder (`SQLite format 3\0`, not a real database): on Node 20 the runtime cannot read
 * SQLite at all; on Node 22.5+ the file is opened and is not a database.
 */
export function placeholderDbReason(described: string): string {
  return HAS_SQLITE
    ? `transcript not available: this opencode's SQLite store (${described}) could not be read: file is not a database`
    : `transcript not available: this opencode keeps its sessions in SQLite (${described}); Node ${process.versions.node} has no built-in SQLite (node:sqlite, Node 22.5 and later)`
}
