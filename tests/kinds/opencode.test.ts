import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { connect } from '../transcript/ws-client.ts'
import { OpencodeStore, placeholderDbReason, T0 } from './opencode-fixture.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

const iso = (s: number) => new Date(T0 + s * 1000).toISOString()

/** Every file under a folder with its mtime: the reader must leave them as they were. */
function snapshotTree(dir: string): Record<string, number> {
  const out: Record<string, number> = {}
  const walk = (d: string) => {
    for (const n of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, n.name)
      if (n.isDirectory()) walk(p)
      else out[p] = statSync(p).mtimeMs
    }
  }
  walk(dir)
  return out
}

describe('opencode transcripts over /agent-transcript', () => {
  let stack: Stack
  let cwd: string
  let storage: string

  async function opencodePane(sessionId?: string, dir = cwd): Promise<string> {
    const r = await stack.sim.request('workspace.create', { cwd: dir })
    const pane = r.root_pane.pane_id as string
    await reportBusyAgent(stack.sim, pane, {
      source: 'herdr:opencode',
      agent: 'opencode',
      state: 'working',
      ...(sessionId ? { agent_session_id: sessionId } : {}),
    })
    return pane
  }
  const url = (pane: string) => `${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`

  beforeAll(async () => {
    stack = await startStack()
    cwd = join(stack.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    storage = join(stack.home, '.local', 'share', 'opencode', 'storage')
  }, 60_000)
  afterAll(async () => stack?.close())

  it('streams the stored session: entries in order, finished parts only, the tail as parts finish; nothing is written', async () => {
    const store = new OpencodeStore(storage, 'ses_a1')
    store.session(cwd)
    store.sampleTurn(0)
    const before = snapshotTree(storage)
    const pane = await opencodePane('ses_a1')
    const c = await connect(url(pane))
    expect(await c.next()).toEqual({
      type: 'hello',
      protocol: 5,
      pane,
      agent_kind: 'opencode',
      session_id: 'ses_a1',
      backlog_count: 7,
      total: 7,
      has_more: false,
      oldest_loaded_seq: 1,
      has_older: false,
    })
    const entries = (await c.take(7)).map((f) => f.entry)
    expect(entries).toEqual([
      { id: 'prt_000002', seq: 1, ts: iso(0), role: 'user', kind: 'message', text: 'Raise the cache TTL', parsed: true },
      { id: 'prt_000006', seq: 2, ts: iso(1), role: 'assistant', kind: 'thinking', text: 'Find the constant first.', parsed: true },
      {
        id: 'prt_000007',
        seq: 3,
        ts: iso(2),
        role: 'assistant',
        kind: 'tool_call',
        tool: { id: 'call_b1', name: 'bash', title: 'rg -n ttl src', command: 'rg -n ttl src', input_summary: 'rg -n ttl src', subtitle: 'Find the TTL' },
        parsed: true,
      },
      {
        id: 'prt_000007#result',
        seq: 4,
        ts: iso(3),
        role: 'user',
        kind: 'tool_result',
        result: { for_id: 'call_b1', ok: true, output_summary: 'src/cache.ts:1:const ttl = 10' },
        parsed: true,
      },
      {
        id: 'prt_000008',
        seq: 5,
        ts: iso(3),
        role: 'assistant',
        kind: 'tool_call',
        tool: { id: 'call_e1', name: 'edit', title: 'src/cache.ts', file: 'cache.ts', input_summary: '/w/src/cache.ts', diff: '@@ -1 +1 @@\n-const ttl = 10\n+const ttl = 60' },
        parsed: true,
      },
      { id: 'prt_000008#result', seq: 6, ts: iso(4), role: 'user', kind: 'tool_result', result: { for_id: 'call_e1', ok: true }, parsed: true },
      { id: 'prt_000009', seq: 7, ts: iso(4), role: 'assistant', kind: 'message', text: 'The TTL is now 60 seconds.', parsed: true },
    ])
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 7, has_more: false })

    // A new turn in progress: the running tool's call streams now, its result and the text when done.
    const u = store.message('user', 10)
    store.part(u, { type: 'text', text: 'Run the tests' })
    const a = store.message('assistant', 11, false, 'msg_000100')
    const tool = store.part(
      a,
      { type: 'tool', callID: 'call_t1', tool: 'bash', state: { status: 'running', input: { command: 'npm test' }, time: { start: T0 + 12_000 } } },
      'prt_000101',
    )
    store.part(a, { type: 'text', text: 'Running the te', time: { start: T0 + 13_000 } }, 'prt_000102')
    const live = await c.take(2)
    expect(live.map((f) => [f.live, f.entry.seq, f.entry.kind, f.entry.text ?? f.entry.tool?.command])).toEqual([
      [true, 8, 'message', 'Run the tests'],
      [true, 9, 'tool_call', 'npm test'],
    ])
    store.part(
      a,
      {
        type: 'tool',
        callID: 'call_t1',
        tool: 'bash',
        state: { status: 'error', input: { command: 'npm test' }, error: '2 failing', time: { start: T0 + 12_000, end: T0 + 14_000 } },
      },
      tool,
    )
    store.part(a, { type: 'text', text: 'Running the tests failed.', time: { start: T0 + 13_000, end: T0 + 15_000 } }, 'prt_000102')
    const done = await c.take(2)
    expect(done.map((f) => f.entry)).toEqual([
      { id: 'prt_000101#result', seq: 10, ts: iso(14), role: 'user', kind: 'tool_result', result: { for_id: 'call_t1', ok: false, output_summary: '2 failing' }, parsed: true },
      { id: 'prt_000102', seq: 11, ts: iso(13), role: 'assistant', kind: 'message', text: 'Running the tests failed.', parsed: true },
    ])
    c.close()
    // Read-only: the files the bridge read are untouched.
    const after = snapshotTree(storage)
    for (const [p, m] of Object.entries(before)) expect(after[p]).toBe(m)
  })

  it('a reconnect replays the same seqs; load_older pages a long session', async () => {
    const store = new OpencodeStore(storage, 'ses_long')
    store.session(cwd)
    for (let i = 0; i < 200; i++) {
      const m = store.message('user', i)
      store.part(m, { type: 'text', text: `prompt ${i + 1}` })
    }
    const pane = await opencodePane('ses_long')
    const c = await connect(url(pane))
    expect(await c.next()).toMatchObject({ type: 'hello', total: 200, backlog_count: 150, oldest_loaded_seq: 51, has_older: true })
    const first = await c.take(150)
    expect(first[0].entry).toMatchObject({ seq: 51, text: 'prompt 51' })
    await c.next()
    c.send({ type: 'load_older', before_seq: 51 })
    const older = await c.take(50)
    expect(older.map((f) => f.entry.text)).toEqual(Array.from({ length: 50 }, (_, i) => `prompt ${i + 1}`))
    expect(await c.next()).toEqual({ type: 'page_complete', requested_before_seq: 51, oldest_loaded_seq: 1, has_older: false })
    c.close()
    const again = await connect(url(pane))
    expect(await again.next()).toMatchObject({ type: 'hello', total: 200, oldest_loaded_seq: 51 })
    expect((await again.next()).entry).toMatchObject({ seq: 51, text: 'prompt 51' })
    again.close()
  })

  it('without an id: the newest top-level session of the cwd; the snapshot dates a known session', async () => {
    const dir = join(stack.home, 'solo')
    mkdirSync(dir, { recursive: true })
    const older = new OpencodeStore(storage, 'ses_old')
    older.session(dir, T0 + 1000)
    const child = new OpencodeStore(storage, 'ses_child')
    child.session(dir, T0 + 9000, { parentID: 'ses_new' })
    const newer = new OpencodeStore(storage, 'ses_new')
    newer.session(dir, T0 + 5000)
    newer.sampleTurn(0)
    const pane = await opencodePane(undefined, dir)
    const c = await connect(url(pane))
    expect(await c.next()).toMatchObject({ type: 'hello', session_id: 'ses_new', total: 7 })
    c.close()
    const known = await opencodePane('ses_new', dir)
    const body = (await (await stack.bridge.request('/snapshot')).json()) as GetResponses['/snapshot']
    const a = body.result.snapshot.agents.find((x) => x.pane_id === known)
    expect(a!.last_activity_ts).toBe(T0 + 5000)
  })

  it('a store that is only a placeholder database file is refused with a one-line reason', async () => {
    const res = await (async () => {
      const { stack: s2, pane } = await (async () => {
        const s2 = await startStack()
        const data = join(s2.home, '.local', 'share', 'opencode')
        mkdirSync(data, { recursive: true })
        writeFileSync(join(data, 'opencode.db'), 'SQLite format 3\0')
        const r = await s2.sim.request('workspace.create', { cwd: s2.home })
        const pane = r.root_pane.pane_id as string
        await reportBusyAgent(s2.sim, pane, { source: 'herdr:opencode', agent: 'opencode', state: 'working', agent_session_id: 'ses_db' })
        return { stack: s2, pane }
      })()
      try {
        const r = await fetch(`${s2.bridge.url}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${s2.bridge.adminToken}`)
        return [r.status, await r.text()]
      } finally {
        await s2.close()
      }
    })()
    expect(res).toEqual([404, placeholderDbReason('opencode.db')])
  })
})
