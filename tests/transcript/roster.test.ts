import { describe, it, expect, beforeEach, afterEach } from 'vitest'
import { mkdtempSync, mkdirSync, writeFileSync, appendFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { emptyDoneState, isDone, observeLine } from '../../plugins/kind-claude/transcript/done-scan.ts'
import { claudeRoster } from '../../plugins/kind-claude/transcript/roster.ts'
import { claudeTranscript } from '../../plugins/kind-claude/transcript/reader.ts'
import { encodeCwd } from '../../plugins/kind-claude/transcript/locate.ts'
import { lastTimestamp } from '../../lib/transcript/activity.ts'
import type { AgentInfo } from '../../core/herdr/index.ts'

const spawn = (id: string, name: 'Task' | 'Agent', background?: boolean) =>
  JSON.stringify({
    type: 'assistant',
    uuid: `a-${id}`,
    message: { content: [{ type: 'tool_use', id, name, input: { description: 'd', prompt: 'p', ...(background === undefined ? {} : { run_in_background: background }) } }] },
  })
const result = (id: string) => JSON.stringify({ type: 'user', uuid: `r-${id}`, message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'finished' }] } })
const notify = (body: string) => JSON.stringify({ type: 'user', uuid: `n-${Math.random()}`, message: { role: 'user', content: body } })
const note = (ids: string[], status?: string) =>
  `<task-notification>${ids.map((i) => `<task-id>${i}</task-id>`).join('\n')}${status === undefined ? '' : `\n<status>${status}</status>`}\n<summary>x</summary></task-notification>`

describe('done semantics', () => {
  it('async spawn: running until a notification, then done', () => {
    const s = emptyDoneState()
    observeLine(s, spawn('tu1', 'Task', true))
    observeLine(s, result('tu1'))
    expect(isDone(s, 'ag1', 'tu1')).toBe(false)
    observeLine(s, notify(note(['ag1'], 'completed')))
    expect(isDone(s, 'ag1', 'tu1')).toBe(true)
  })

  it('absent run_in_background counts as async: the tool result alone does not finish it', () => {
    const s = emptyDoneState()
    observeLine(s, spawn('tu2', 'Agent'))
    observeLine(s, result('tu2'))
    expect(isDone(s, 'ag2', 'tu2')).toBe(false)
  })

  it('sync spawn (Task or Agent): done when its tool_result returns', () => {
    const s = emptyDoneState()
    observeLine(s, spawn('tu3', 'Agent', false))
    expect(isDone(s, 'ag3', 'tu3')).toBe(false)
    observeLine(s, result('tu3'))
    expect(isDone(s, 'ag3', 'tu3')).toBe(true)
  })

  it('the notification wins over the sync result, even when it says running', () => {
    const s = emptyDoneState()
    observeLine(s, spawn('tu4', 'Task', false))
    observeLine(s, result('tu4'))
    observeLine(s, notify(note(['ag4'], ' Running ')))
    expect(isDone(s, 'ag4', 'tu4')).toBe(false)
  })

  it('several ids under one status; a status pairs only inside its own block; no status changes nothing', () => {
    const s = emptyDoneState()
    observeLine(s, notify(note(['a', 'b'], 'completed') + note(['c'])))
    expect([isDone(s, 'a', ''), isDone(s, 'b', ''), isDone(s, 'c', '')]).toEqual([true, true, false])
  })

  it('a terminal status does not latch: the last status wins', () => {
    const s = emptyDoneState()
    observeLine(s, notify(note(['z'], 'failed')))
    expect(isDone(s, 'z', '')).toBe(true)
    observeLine(s, notify(note(['z'], 'running')))
    expect(isDone(s, 'z', '')).toBe(false)
    observeLine(s, notify(note(['z'], 'killed')))
    expect(isDone(s, 'z', '')).toBe(true)
  })
})

describe('roster discovery', () => {
  let home: string
  let parent: string
  let sub: string
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'roster-'))
    const dir = join(home, '.claude', 'projects', encodeCwd('/proj'))
    parent = join(dir, 'sess1.jsonl')
    sub = join(dir, 'sess1', 'subagents')
    mkdirSync(sub, { recursive: true })
  })
  afterEach(() => rmSync(home, { recursive: true, force: true }))

  const child = (id: string, meta: string | object | null, ts?: string) => {
    writeFileSync(join(sub, `agent-${id}.jsonl`), ts ? JSON.stringify({ type: 'user', uuid: 'x', timestamp: ts, message: { content: 'hi' } }) + '\n' : '')
    if (meta !== null) writeFileSync(join(sub, `agent-${id}.meta.json`), typeof meta === 'string' ? meta : JSON.stringify(meta))
  }

  it('one row per transcript, unreadable or missing meta keeps the id, sorted by depth then id, done from the parent', async () => {
    writeFileSync(parent, [spawn('tu-b', 'Task', false), result('tu-b'), spawn('tu-c', 'Agent', true), notify(note(['c1'], 'completed'))].join('\n') + '\n')
    child('b2', { agentType: 'explorer', description: 'look around', toolUseId: 'tu-b', spawnDepth: 1 }, '2025-03-01T00:00:05Z')
    child('c1', { agentType: 'coder', description: 'write', toolUseId: 'tu-c', spawnDepth: 1 })
    child('a9', { agentType: 'deep', description: 'grandchild', toolUseId: 'tu-x', spawnDepth: 2 })
    child('broken', '{nope')
    child('orphan', null) // transcript without metadata, nothing in the parent about it: a row without labels
    writeFileSync(join(sub, 'agent-meta-only.meta.json'), '{}') // metadata without transcript: dropped
    const rows = await claudeRoster({ sessionId: 'sess1', path: parent })
    expect(rows).toEqual([
      { agent_id: 'b2', tool_use_id: 'tu-b', agent_type: 'explorer', description: 'look around', spawn_depth: 1, done: true, last_activity_ts: Date.parse('2025-03-01T00:00:05Z') },
      { agent_id: 'broken', tool_use_id: '', agent_type: '', description: '', spawn_depth: 1, done: false },
      { agent_id: 'c1', tool_use_id: 'tu-c', agent_type: 'coder', description: 'write', spawn_depth: 1, done: true },
      { agent_id: 'orphan', tool_use_id: '', agent_type: '', description: '', spawn_depth: 1, done: false },
      { agent_id: 'a9', tool_use_id: 'tu-x', agent_type: 'deep', description: 'grandchild', spawn_depth: 2, done: false },
    ])
    // The scan is incremental: a later notification flips a row.
    appendFileSync(parent, notify(note(['a9'], 'completed')) + '\n')
    expect((await claudeRoster({ sessionId: 'sess1', path: parent })).find((r) => r.agent_id === 'a9')?.done).toBe(true)
  })

  it('without metadata (real 2.1.x sessions) a row takes its labels from the parent call that spawned it', async () => {
    const call = (id: string, type: string, description: string) =>
      JSON.stringify({
        type: 'assistant',
        uuid: `a-${id}`,
        message: { content: [{ type: 'tool_use', id, name: 'Task', input: { subagent_type: type, description, prompt: 'p' } }] },
      })
    // Running: only its progress lines name the agent id; finished: its result does, and says it completed.
    const progress = JSON.stringify({
      type: 'progress',
      uuid: 'pg',
      parentToolUseID: 'tu-run',
      toolUseID: 'agent_msg_1',
      data: { type: 'agent_progress', agentId: 'run1', prompt: 'p' },
    })
    const finished = JSON.stringify({
      type: 'user',
      uuid: 'r-fin',
      message: { content: [{ type: 'tool_result', tool_use_id: 'tu-fin', content: [{ type: 'text', text: 'done' }] }] },
      toolUseResult: { status: 'completed', agentId: 'fin1', content: [] },
    })
    writeFileSync(parent, [call('tu-run', 'Explore', 'look around'), progress, call('tu-fin', 'Plan', 'make a plan'), finished].join('\n') + '\n')
    child('run1', null)
    child('fin1', null)
    expect(await claudeRoster({ sessionId: 'sess1', path: parent })).toEqual([
      { agent_id: 'fin1', tool_use_id: 'tu-fin', agent_type: 'Plan', description: 'make a plan', spawn_depth: 1, done: true },
      { agent_id: 'run1', tool_use_id: 'tu-run', agent_type: 'Explore', description: 'look around', spawn_depth: 1, done: false },
    ])
  })

  it('snapshot counts and activity come from the known session only', async () => {
    writeFileSync(parent, JSON.stringify({ type: 'user', uuid: 'u', timestamp: '2025-03-01T00:00:09.5Z', message: { content: 'x' } }) + '\n' + 'x'.repeat(100) + '\n')
    child('k1', { toolUseId: 't1' })
    const agent = { pane_id: 'p', agent: 'claude', cwd: '/proj', agent_session: { source: 'herdr:claude', agent: 'claude', kind: 'id', value: 'sess1' } } as unknown as AgentInfo
    expect(await claudeTranscript.subagentCounts!(agent, { home, env: {} })).toEqual({ total: 1, running: 1 })
    expect(await claudeTranscript.lastActivity!(agent, { home, env: {} })).toBe(Date.parse('2025-03-01T00:00:09.5Z'))
    const unknown = { ...agent, agent_session: undefined } as AgentInfo
    expect(await claudeTranscript.lastActivity!(unknown, { home, env: {} })).toBeUndefined()
    expect(await claudeTranscript.subagentCounts!({ ...agent, agent_session: { ...agent.agent_session!, value: 'other' } }, { home, env: {} })).toBeUndefined()
  })

  it('last activity reads only the last 64 KiB and skips the partial first line', async () => {
    const old = JSON.stringify({ timestamp: '2025-01-01T00:00:00Z', pad: 'y'.repeat(70_000) })
    writeFileSync(parent, old + '\n' + 'not json\n')
    expect(await lastTimestamp(parent)).toBeUndefined()
    appendFileSync(parent, JSON.stringify({ timestamp: '2025-01-02T00:00:00Z' }) + '\n{"timestamp":"yesterday"}\n')
    expect(await lastTimestamp(parent)).toBe(Date.parse('2025-01-02T00:00:00Z'))
  })
})
