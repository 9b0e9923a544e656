// Pure pieces: the status book, the coalescer, the timeline ring and its bounds.
import { test, expect } from 'vitest'
import { createStatusBook, createCoalescer } from '../../core/herdr/status-dedupe.ts'
import { createRecorder } from '../../plugins/timeline/recorder.ts'
import { parseLimit } from '../../plugins/timeline/index.ts'

test('status book: seeded states are not transitions; repeats are not either', () => {
  const b = createStatusBook()
  b.seed([{ pane_id: 'w1:p1', workspace_id: 'w1', agent: 'claude', agent_status: 'idle' }])
  expect(b.commit('w1:p1', 'idle')).toBeUndefined()
  expect(b.commit('w1:p1', 'working')).toEqual({ status: 'working', agent: 'claude', workspace: 'w1' })
  expect(b.commit('w1:p1', 'working', 'claude', 'w1')).toBeUndefined()
  expect(b.commit('w1:p2', 'idle', 'pi', 'w1')).toEqual({ status: 'idle', agent: 'pi', workspace: 'w1' })
  expect(b.commit('w1:p2', '')).toBeUndefined()
  b.rename('w1:p2', 'w2:p1')
  expect(b.get('w2:p1')?.status).toBe('idle')
  b.forget('w2:p1')
  expect(b.commit('w2:p1', 'idle')).toBeDefined()
})

test('coalescer: a burst of requests costs at most one extra run, and the last one sees fresh state', async () => {
  let runs = 0
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const c = createCoalescer(async () => {
    runs++
    if (runs === 1) await gate
  })
  const first = c.request('p')
  for (let i = 0; i < 10; i++) void c.request('p')
  expect(c.busy('p')).toBe(true)
  release()
  await first
  await c.idle()
  expect(runs).toBe(2)
  expect(c.busy('p')).toBe(false)
})

test('recorder: spans, prev_ms, gone, repeats ignored, newest first', () => {
  const now = 1_000_000
  const r = createRecorder({ now: () => now })
  expect(r.status(1000, { pane: 'p', status: 'working', agent: 'claude', workspace: 'w1', session: 'default' })).toEqual({
    ts: 1000,
    pane: 'p',
    agent: 'claude',
    session: 'default',
    workspace: 'w1',
    to: 'working',
  })
  expect(r.status(1500, { pane: 'p', status: 'working' })).toBeUndefined()
  expect(r.status(4000, { pane: 'p', status: 'working' })).toBeUndefined()
  expect(r.status(4000, { pane: 'p', status: 'blocked' })).toMatchObject({ from: 'working', to: 'blocked', prev_ms: 3000 })
  expect(r.status(4000, { pane: 'p', status: 'idle' })).toMatchObject({ from: 'blocked', prev_ms: 0 })
  expect(r.gone(5000, 'p')).toMatchObject({ from: 'idle', to: 'gone', prev_ms: 1000 })
  expect(r.gone(6000, 'p')).toBeUndefined()
  expect(r.list(2).map((e) => e.to)).toEqual(['gone', 'idle'])
  expect(r.list(10, 'other')).toEqual([])
  expect(r.dirty).toBe(true)
})

test('recorder: rebuild resumes a span from history, re-points a changed one, writes nothing', () => {
  const now = 10_000
  const stored = [{ ts: 2000, pane: 'p', agent: 'claude', session: 'default', workspace: 'w1', to: 'blocked' }]
  const r = createRecorder({ now: () => now, initial: stored })
  r.rebuild(
    'default',
    [
      { pane: 'p', agent: 'claude', agent_status: 'blocked', workspace: 'w1', session: 'default', title: 'reviewer' },
      { pane: 'q', agent: 'claude', agent_status: 'working', workspace: 'w1', session: 'default' },
    ],
    9000,
  )
  expect(r.entries().length).toBe(1)
  expect(r.status(9500, { pane: 'p', status: 'idle' })).toMatchObject({ from: 'blocked', prev_ms: 7500, title: 'reviewer' })
  const q = r.status(9600, { pane: 'q', status: 'idle' })!
  expect(q.from).toBe('working')
  expect('prev_ms' in q).toBe(false)
  // A span an event touched after the rebuild read began is not rolled back.
  r.rebuild('default', [{ pane: 'q', agent: 'claude', agent_status: 'working', session: 'default' }], 9550)
  expect(r.status(9700, { pane: 'q', status: 'blocked' })).toMatchObject({ from: 'idle', prev_ms: 100 })
})

test('recorder: 1500 entries and 72 h bounds, corrupt input starts empty', () => {
  let now = 100 * 3600 * 1000
  const r = createRecorder({ now: () => now, initial: [{ ts: 1, pane: 'old', to: 'idle' }, { bad: true }, 'x'] })
  expect(r.entries()).toEqual([])
  for (let i = 0; i < 1600; i++) r.status(now + i, { pane: `p${i % 7}`, status: i % 2 ? 'working' : 'idle' })
  expect(r.entries().length).toBe(1500)
  now += 73 * 3600 * 1000
  expect(r.prune()).toBe(true)
  expect(r.entries()).toEqual([])
  expect(createRecorder({ now: () => now, initial: { not: 'an array' } }).entries()).toEqual([])
})

test('limit parsing', () => {
  expect(parseLimit(undefined)).toBe(100)
  expect(parseLimit('1')).toBe(1)
  expect(parseLimit('500')).toBe(500)
  expect(parseLimit('501')).toBe(500)
  for (const bad of ['0', '-3', 'x', '2.5', '', '1e2']) expect(parseLimit(bad)).toBeNull()
})
