/**
 * opencode's SQLite store (`opencode.db`, WAL mode), read through node:sqlite where the runtime
 * has it. The database is built with opencode's own table layout by a second, long-lived
 * connection (Python's sqlite3, as another process like opencode) that keeps writing while the
 * bridge reads: new rows, still in `-wal`, stream live; the writer, with no busy timeout at all,
 * is never refused. On a runtime without node:sqlite (Node 20) the transcript is refused in one
 * line that says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { startStack, type Stack } from '../harness/stack.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import { connect } from '../transcript/ws-client.ts'
import { HAS_SQLITE } from './opencode-fixture.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

/** opencode's tables (packages/opencode/src/session/session.sql.ts), the columns the bridge reads and the NOT NULL ones. */
const SCHEMA = `
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES project(id) ON DELETE CASCADE, workspace_id TEXT, parent_id TEXT,
  slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT,
  cost REAL NOT NULL DEFAULT 0, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
`

/** A second connection in another process: one JSON command a line, `ok <ms>` or `err <message>` back. */
const WRITER = `
import json, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
db.execute('PRAGMA journal_mode=WAL')
for line in sys.stdin:
    cmd = json.loads(line)
    t = time.monotonic()
    try:
        db.execute('BEGIN IMMEDIATE')
        for sql, params in cmd:
            db.execute(sql, params)
        db.execute('COMMIT')
        print('ok %d' % ((time.monotonic() - t) * 1000), flush=True)
    except Exception as e:
        print('err %s' % e, flush=True)
`

const T0 = 1_780_000_000_000
const SID = 'ses_sqlite0000000000000001'

function startWriter(path: string) {
  const child: ChildProcessWithoutNullStreams = spawn('python3', ['-c', WRITER, path])
  const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return {
    async run(statements: [string, unknown[]][]): Promise<string> {
      child.stdin.write(JSON.stringify(statements) + '\n')
      return String((await replies.next()).value)
    },
    close: () => child.kill(),
  }
}

const message = (id: string, role: 'user' | 'assistant', at: number, extra: object = {}): [string, unknown[]] => [
  'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
  [id, SID, at, at, JSON.stringify({ role, time: { created: at, ...(role === 'assistant' ? { completed: at + 500 } : {}) }, ...extra })],
]
const part = (id: string, messageId: string, at: number, data: object): [string, unknown[]] => [
  'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
  [id, messageId, SID, at, at, JSON.stringify(data)],
]
const text = (t: string, at: number) => ({ type: 'text', text: t, time: { start: at, end: at + 10 } })

describe('opencode: sessions in SQLite (opencode.db)', () => {
  let stack: Stack
  let cwd: string
  let db: string
  let writer: ReturnType<typeof startWriter>
  const opened: string[] = []

  beforeAll(async () => {
    stack = await startStack()
    cwd = join(stack.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    const data = join(stack.home, '.local', 'share', 'opencode')
    mkdirSync(data, { recursive: true })
    db = join(data, 'opencode.db')
    writer = startWriter(db)
    const schema = SCHEMA.split(';')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s): [string, unknown[]] => [s, []])
    expect(await writer.run(schema)).toMatch(/^ok /)
    expect(
      await writer.run([
        ['INSERT INTO project (id, worktree, time_created, time_updated) VALUES (?, ?, ?, ?)', ['prj_1', cwd, T0, T0]],
        [
          'INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          [SID, 'prj_1', 'calm-otter', cwd, 'Fix the tests', '1.15.0', T0, T0 + 5000],
        ],
        message('msg_0001', 'user', T0 + 1000),
        part('prt_0001', 'msg_0001', T0 + 1000, { type: 'text', text: 'fix the failing test' }),
        message('msg_0002', 'assistant', T0 + 2000),
        part('prt_0002', 'msg_0002', T0 + 2000, text('Running the tests.', T0 + 2000)),
        part('prt_0003', 'msg_0002', T0 + 2100, {
          type: 'tool',
          callID: 'call_1',
          tool: 'bash',
          state: { status: 'error', input: { command: 'npm test' }, error: '1 failing', time: { start: T0 + 2100, end: T0 + 2200 } },
        }),
      ]),
    ).toMatch(/^ok /)
  }, 60_000)
  afterAll(async () => {
    writer?.close()
    await stack?.close()
  })

  async function pane(sessionId?: string): Promise<string> {
    const p = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    await reportBusyAgent(stack.sim, p, { source: 'herdr:opencode', agent: 'opencode', state: 'working', ...(sessionId ? { agent_session_id: sessionId } : {}) })
    opened.push(p)
    return p
  }

  if (!HAS_SQLITE) {
    it(`Node ${process.versions.node}: refused in one line that says why`, async () => {
      const p = await pane(SID)
      const r = await fetch(`${stack.bridge.url}/agent-transcript?pane=${encodeURIComponent(p)}&token=${stack.bridge.adminToken}`)
      expect([r.status, await r.text()]).toEqual([
        404,
        `transcript not available: this opencode keeps its sessions in SQLite (opencode.db); Node ${process.versions.node} has no built-in SQLite (node:sqlite, Node 22.5 and later)`,
      ])
    })
    return
  }

  it('streams the session, then what a second connection writes while the bridge reads; the writer is never refused', async () => {
    const p = await pane(SID)
    const c = await connect(`${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(p)}&token=${stack.bridge.adminToken}`)
    expect(await c.next()).toMatchObject({ type: 'hello', agent_kind: 'opencode', session_id: SID, total: 4 })
    const backlog = (await c.take(4)).map((f) => f.entry)
    expect(backlog.map((e) => [e.seq, e.role, e.kind, e.text ?? e.tool?.name ?? e.result?.output_summary])).toEqual([
      [1, 'user', 'message', 'fix the failing test'],
      [2, 'assistant', 'message', 'Running the tests.'],
      [3, 'assistant', 'tool_call', 'bash'],
      [4, 'user', 'tool_result', '1 failing'],
    ])
    expect(backlog[3].result.ok).toBe(false)
    expect(await c.next()).toMatchObject({ type: 'backlog_complete', count: 4 })
    expect(existsSync(`${db}-wal`)).toBe(true)
    // Twenty commits with no busy timeout while the bridge polls the file every 250 ms.
    for (let i = 0; i < 20; i++) {
      const at = T0 + 10_000 + i * 1000
      const reply = await writer.run([
        message(`msg_1${String(i).padStart(3, '0')}`, 'user', at),
        part(`prt_1${String(i).padStart(3, '0')}`, `msg_1${String(i).padStart(3, '0')}`, at, { type: 'text', text: `prompt ${i}` }),
      ])
      expect(reply).toMatch(/^ok /)
      await new Promise((r) => setTimeout(r, 40))
    }
    const live = await c.take(20)
    expect(live.map((f) => [f.live, f.entry.seq, f.entry.text])).toEqual(Array.from({ length: 20 }, (_, i) => [true, 5 + i, `prompt ${i}`]))
    c.close()
  })

  it('without an id: the newest top-level session of the cwd; the snapshot dates it from the database', async () => {
    // Alone in the cwd (another opencode there would make the guess ambiguous).
    for (const old of opened.splice(0)) await stack.sim.request('pane.close', { pane_id: old })
    const p = await pane()
    const c = await connect(`${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(p)}&token=${stack.bridge.adminToken}`)
    expect(await c.next()).toMatchObject({ type: 'hello', session_id: SID })
    c.close()
    const known = await pane(SID)
    const body = (await (await stack.bridge.request('/snapshot')).json()) as GetResponses['/snapshot']
    expect(body.result.snapshot.agents.find((a) => a.pane_id === known)?.last_activity_ts).toBe(T0 + 5000)
  })
})
