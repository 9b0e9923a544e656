import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { appendFileSync, mkdirSync, writeFileSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { connect } from '../transcript/ws-client.ts'
import fc from 'fast-check'
import { countCodexLine, normalizeCodexLine, commandOf, toolResult } from '../../plugins/kind-codex/transcript/normalize.ts'
import { at, assistantText, meta, sampleSession, shellCall, shellOutput, userText, writeRollout } from './codex-fixture.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

describe('codex rollout normalization', () => {
  it('keeps the conversation and tools, skips what codex injects and its UI events', () => {
    const entries = sampleSession('s', '/w').flatMap(normalizeCodexLine)
    expect(entries).toEqual([
      { id: '', ts: at(3), role: 'user', kind: 'message', text: 'Raise the cache TTL to a minute', parsed: true },
      { id: '', ts: at(4), role: 'assistant', kind: 'thinking', text: '**Finding the TTL**\n\nLooking for the constant.', parsed: true },
      {
        id: '',
        ts: at(5),
        role: 'assistant',
        kind: 'tool_call',
        tool: { id: 'call_1', name: 'shell', title: 'shell', command: 'rg -n ttl src', input_summary: 'rg -n ttl src' },
        parsed: true,
      },
      { id: '', ts: at(6), role: 'user', kind: 'tool_result', result: { for_id: 'call_1', ok: true, output_summary: 'src/cache.ts:1:const ttl = 10' }, parsed: true },
      {
        id: '',
        ts: at(7),
        role: 'assistant',
        kind: 'tool_call',
        tool: { id: 'call_2', name: 'apply_patch', title: 'apply_patch', file: 'cache.ts', input_summary: 'src/cache.ts', diff: '@@\n-const ttl = 10\n+const ttl = 60' },
        parsed: true,
      },
      {
        id: '',
        ts: at(8),
        role: 'user',
        kind: 'tool_result',
        result: { for_id: 'call_2', ok: true, output_summary: 'Success. Updated the following files:\nM src/cache.ts' },
        parsed: true,
      },
      { id: '', ts: at(9), role: 'assistant', kind: 'message', text: 'The cache TTL is now 60 seconds.', parsed: true },
    ])
  })

  it('reads every output shape codex has written, and a failing exit code', () => {
    expect(toolResult('c', JSON.stringify({ output: 'boom\n', metadata: { exit_code: 2 } }))).toEqual({ for_id: 'c', ok: false, output_summary: 'boom' })
    expect(toolResult('c', 'Exit code: 1\nWall time: 0.2 seconds\nOutput:\nno such file\n')).toEqual({ for_id: 'c', ok: false, output_summary: 'no such file' })
    expect(toolResult('c', 'Exit code: 0\nWall time: 0.2 seconds\nOutput:\nfine')).toEqual({ for_id: 'c', ok: true, output_summary: 'fine' })
    expect(
      toolResult('c', [
        { type: 'input_text', text: 'a' },
        { type: 'input_image', image_url: 'data:' },
      ]),
    ).toEqual({ for_id: 'c', ok: true, output_summary: 'a\n[image]' })
    expect(toolResult('c', { content: 'denied', success: false })).toEqual({ for_id: 'c', ok: false, output_summary: 'denied' })
    expect(toolResult('c', '\x1b[31mred\x1b[0m')).toEqual({ for_id: 'c', ok: true, output_summary: 'red' })
    const long = toolResult('c', 'x'.repeat(5000))
    expect([long.output_summary!.length, long.truncated]).toEqual([4000, true])
  })

  it('shell commands: the script of `bash -lc`, quoted argv otherwise, exec_command and local_shell_call', () => {
    expect(commandOf(['bash', '-lc', 'ls -la'])).toBe('ls -la')
    expect(commandOf(['git', 'commit', '-m', "it's done"])).toBe(`git commit -m 'it'\\''s done'`)
    const exec = JSON.stringify({ type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'npm test' }), call_id: 'e1' } })
    expect(normalizeCodexLine(exec)[0].tool).toEqual({ id: 'e1', name: 'exec_command', title: 'exec_command', command: 'npm test', input_summary: 'npm test' })
    const local = JSON.stringify({ type: 'response_item', payload: { type: 'local_shell_call', call_id: 'l1', status: 'completed', action: { type: 'exec', command: ['pwd'] } } })
    expect(normalizeCodexLine(local)[0].tool).toEqual({ id: 'l1', name: 'local_shell', title: 'local_shell', command: 'pwd', input_summary: 'pwd' })
    const mcp = JSON.stringify({ type: 'response_item', payload: { type: 'function_call', name: 'docs__search', arguments: '{"q": "ttl"}', call_id: 'm1' } })
    expect(normalizeCodexLine(mcp)[0].tool).toEqual({ id: 'm1', name: 'docs__search', title: 'docs__search', input_summary: '{"q": "ttl"}' })
  })

  it('older files (bare items, bare meta line), unknown records and broken lines', () => {
    expect(normalizeCodexLine(JSON.stringify({ id: 'x', timestamp: '2025-05-01T00:00:00Z', instructions: null }))).toEqual([])
    expect(normalizeCodexLine(JSON.stringify({ record_type: 'state' }))).toEqual([])
    expect(normalizeCodexLine(JSON.stringify({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'old' }] }))).toEqual([
      { id: '', role: 'assistant', kind: 'message', text: 'old', parsed: true },
    ])
    expect(normalizeCodexLine('{"type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"x"}}')).toEqual([])
    expect(normalizeCodexLine('{"type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{}}}')).toEqual([])
    expect(normalizeCodexLine('{"type":"brand_new"}')).toEqual([{ id: '', role: 'system', kind: 'message', parsed: false }])
    expect(normalizeCodexLine('{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"audio"}]}}')).toEqual([
      { id: '', role: 'user', kind: 'message', parsed: false },
    ])
    expect(normalizeCodexLine('not json')).toEqual([{ id: '', role: 'system', kind: 'message', parsed: false }])
    expect(normalizeCodexLine(JSON.stringify({ type: 'compacted', timestamp: at(1), payload: { message: 'summary' } }))).toEqual([
      { id: '', ts: at(1), role: 'system', kind: 'message', text: 'Conversation compacted', parsed: true },
    ])
  })
})

describe('codex transcripts over /agent-transcript', () => {
  let stack: Stack
  let cwd: string
  let codexHome: string

  async function codexPane(sessionId?: string, dir = cwd): Promise<string> {
    const r = await stack.sim.request('workspace.create', { cwd: dir })
    const pane = r.root_pane.pane_id as string
    await reportBusyAgent(stack.sim, pane, { source: 'herdr:codex', agent: 'codex', state: 'working', ...(sessionId ? { agent_session_id: sessionId } : {}) })
    return pane
  }
  const url = (pane: string) => `${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`

  beforeAll(async () => {
    stack = await startStack()
    cwd = join(stack.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    codexHome = join(stack.home, '.codex')
  }, 60_000)
  afterAll(async () => stack?.close())

  it('located by herdr session id: hello, newest page, load_older, live tail', async () => {
    const id = '0199a0c1-0000-7000-8000-000000000001'
    const lines = [meta(id, cwd), ...Array.from({ length: 200 }, (_, i) => userText(i + 1, `message ${i + 1}`))]
    const path = writeRollout(codexHome, id, lines)
    const pane = await codexPane(id)
    const c = await connect(url(pane))
    expect(await c.next()).toEqual({
      type: 'hello',
      protocol: 5,
      pane,
      agent_kind: 'codex',
      session_id: id,
      backlog_count: 150,
      total: 200,
      has_more: true,
      oldest_loaded_seq: 51,
      has_older: true,
    })
    const page = await c.take(150)
    expect(page[0]).toEqual({ type: 'entry', live: false, entry: { id: 'seq-51', seq: 51, ts: at(51), role: 'user', kind: 'message', text: 'message 51', parsed: true } })
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 150, has_more: true })
    c.send({ type: 'load_older', before_seq: 51, limit: 50 })
    expect((await c.take(50)).map((f) => f.entry.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 1 + i))
    expect(await c.next()).toEqual({ type: 'page_complete', requested_before_seq: 51, oldest_loaded_seq: 1, has_older: false })
    const more = [shellCall(300, 'call_9', 'npm test'), shellOutput(301, 'call_9', 'ok', 0), assistantText(302, 'Done.')]
    appendFileSync(path, more[0].slice(0, 30))
    appendFileSync(path, more[0].slice(30) + '\n' + more.slice(1).join('\n') + '\n')
    const live = await c.take(3)
    expect(live.map((f) => [f.live, f.entry.seq, f.entry.kind])).toEqual([
      [true, 201, 'tool_call'],
      [true, 202, 'tool_result'],
      [true, 203, 'message'],
    ])
    expect(live[0].entry.tool).toEqual({ id: 'call_9', name: 'shell', title: 'shell', command: 'npm test', input_summary: 'npm test' })
    expect(live[1].entry.result).toEqual({ for_id: 'call_9', ok: true, output_summary: 'ok' })
    c.close()
  })

  it('a known id whose rollout is not written yet streams once codex writes it; a new id rotates the session', async () => {
    const first = '0199a0c1-0000-7000-8000-000000000002'
    const second = '0199a0c1-0000-7000-8000-000000000003'
    const pane = await codexPane(first)
    const c = await connect(url(pane))
    expect(await c.next()).toMatchObject({ type: 'hello', agent_kind: 'codex', session_id: first, total: 0, backlog_count: 0 })
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 0, has_more: false })
    // codex writes the rollout with the first turn, in the day folder of its start.
    writeRollout(codexHome, first, [meta(first, cwd), userText(1, 'hello codex')], '02')
    expect(await c.next()).toEqual({ type: 'entry', live: true, entry: { id: 'seq-1', seq: 1, ts: at(1), role: 'user', kind: 'message', text: 'hello codex', parsed: true } })
    writeRollout(codexHome, second, [meta(second, cwd), userText(1, 'a new session')], '02')
    await stack.sim.request('pane.report_agent', { pane_id: pane, source: 'herdr:codex', agent: 'codex', state: 'working', agent_session_id: second })
    expect(await c.until((f) => f.type === 'session_changed')).toEqual({ type: 'session_changed', pane, from: first, to: second })
    expect(await c.next()).toMatchObject({ type: 'hello', session_id: second, total: 1 })
    expect((await c.next()).entry.text).toBe('a new session')
    c.close()
  })

  it('without an id: the newest rollout of the cwd (older builds wrote straight under sessions/); a twin codex in the cwd is refused', async () => {
    const dir = join(stack.home, 'solo')
    mkdirSync(dir, { recursive: true })
    const old = writeRollout(codexHome, 'aaaaaaaa-0000-7000-8000-00000000000a', [meta('aaaaaaaa-0000-7000-8000-00000000000a', dir), userText(1, 'older')], '03')
    utimesSync(old, new Date(2025, 0, 1), new Date(2025, 0, 1))
    writeFileSync(
      join(codexHome, 'sessions', 'rollout-2025-04-01T00-00-00-bbbbbbbb-0000-7000-8000-00000000000b.jsonl'),
      [meta('bbbbbbbb-0000-7000-8000-00000000000b', '/elsewhere'), userText(1, 'not this cwd')].join('\n') + '\n',
    )
    writeRollout(codexHome, 'cccccccc-0000-7000-8000-00000000000c', [meta('cccccccc-0000-7000-8000-00000000000c', dir), userText(1, 'newest')], '04')
    const pane = await codexPane(undefined, dir)
    const c = await connect(url(pane))
    expect(await c.next()).toMatchObject({ type: 'hello', session_id: 'cccccccc-0000-7000-8000-00000000000c', total: 1 })
    expect((await c.next()).entry.text).toBe('newest')
    c.close()
    await codexPane(undefined, dir)
    const res = await fetch(url(pane).replace(/^ws/, 'http'))
    expect([res.status, await res.text()]).toEqual([404, 'transcript not available yet — this agent has not reported its session id'])
  })

  it('the snapshot dates a codex agent from its rollout; an unknown id is not dated', async () => {
    const id = '0199a0c1-0000-7000-8000-000000000004'
    writeRollout(codexHome, id, sampleSession(id, cwd), '05')
    const pane = await codexPane(id)
    const none = await codexPane('0199a0c1-0000-7000-8000-0000000000ff')
    const body = (await (await stack.bridge.request('/snapshot')).json()) as GetResponses['/snapshot']
    const agents = body.result.snapshot.agents
    expect(agents.find((a) => a.pane_id === pane)!.last_activity_ts).toBe(Date.parse(at(9)))
    expect('last_activity_ts' in agents.find((a) => a.pane_id === none)!).toBe(false)
  })
})

describe('countCodexLine', () => {
  const text = fc.oneof(fc.constant(''), fc.constant('  '), fc.constant('<environment_context>x'), fc.string({ maxLength: 12 }), fc.integer())
  const part = fc.oneof(
    fc.record({ type: fc.constantFrom('input_text', 'output_text', 'text'), text }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constantFrom('input_image', 'audio') }),
    fc.string(),
    fc.constant(null),
  )
  const item = fc.oneof(
    fc.record(
      { type: fc.constant('message'), role: fc.constantFrom('user', 'assistant', 'developer', 'system'), content: fc.oneof(text, fc.array(part, { maxLength: 4 })) },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('reasoning'),
        summary: fc.oneof(fc.array(fc.oneof(fc.record({ type: fc.constant('summary_text'), text }), fc.string()), { maxLength: 3 }), fc.constant(null)),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constantFrom('function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'function_call_output', 'custom_tool_call_output'),
        name: fc.constantFrom('shell', 'apply_patch', 'exec_command', 'x'),
        arguments: fc.string(),
        input: fc.string(),
        call_id: fc.string(),
        output: fc.oneof(fc.string(), fc.json()),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constantFrom('ghost_snapshot', 'compaction', 'other_thing') }),
  )
  const line = fc.oneof(
    fc.record({ timestamp: fc.constant(at(1)), type: fc.constant('response_item'), payload: fc.oneof(item, fc.string(), fc.constant(null)) }).map((o) => JSON.stringify(o)),
    fc.record({ type: fc.constantFrom('session_meta', 'turn_context', 'event_msg', 'compacted', 'nope'), payload: fc.json() }).map((o) => JSON.stringify(o)),
    item.map((o) => JSON.stringify(o)),
    fc.record({ id: fc.string(), timestamp: fc.string(), record_type: fc.constantFrom(undefined, 'state') }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
    fc.string(),
    fc.json(),
  )
  it('counts exactly what normalize yields (property), and on the sample session', () => {
    for (const l of sampleSession('s', '/w')) expect(countCodexLine(l)).toBe(normalizeCodexLine(l).length)
    fc.assert(
      fc.property(line, (l) => countCodexLine(l) === normalizeCodexLine(l).length),
      { numRuns: 3000 },
    )
  })
})
