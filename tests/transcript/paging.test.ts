import { describe, it, expect, beforeEach, afterEach } from 'vitest'
import { mkdtempSync, writeFileSync, appendFileSync, truncateSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { clampLimit, newestPage, olderPage } from '../../lib/transcript/paging.ts'
import { TranscriptFile } from '../../plugins/transcript/transcript-file.ts'
import { normalizeClaudeLine } from '../../plugins/kind-claude/transcript/normalize.ts'
import { parseInbound } from '../../plugins/transcript/stream.ts'

describe('paging math', () => {
  it('newest page is the last 150, oldest first', () => {
    expect(newestPage(1, 400)).toEqual({ from: 251, to: 400, count: 150, oldest: 251, has_older: true })
    expect(newestPage(1, 150)).toEqual({ from: 1, to: 150, count: 150, oldest: 1, has_older: false })
    expect(newestPage(1, 0)).toMatchObject({ count: 0, oldest: 0, has_older: false })
  })

  it('load_older boundaries', () => {
    expect(olderPage(1, 400, 251)).toEqual({ from: 101, to: 250, count: 150, oldest: 101, has_older: true })
    expect(olderPage(1, 400, 151, 150)).toEqual({ from: 1, to: 150, count: 150, oldest: 1, has_older: false })
    expect(olderPage(1, 400, 152, 150)).toEqual({ from: 2, to: 151, count: 150, oldest: 2, has_older: true })
    expect(olderPage(1, 400, 1)).toMatchObject({ count: 0, oldest: 0, has_older: false })
    expect(olderPage(1, 400, 0)).toMatchObject({ count: 0, oldest: 0, has_older: false })
    expect(olderPage(1, 400, 2, 1)).toEqual({ from: 1, to: 1, count: 1, oldest: 1, has_older: false })
    expect(olderPage(1, 400, 10_000, 5)).toEqual({ from: 396, to: 400, count: 5, oldest: 396, has_older: true })
    expect(olderPage(101, 400, 101)).toMatchObject({ count: 0, has_older: false })
  })

  it('limit: omitted or ≤0 means 150, capped at 500', () => {
    expect([clampLimit(undefined), clampLimit(0), clampLimit(-4), clampLimit(1), clampLimit(1000), clampLimit(500)]).toEqual([150, 150, 150, 1, 500, 500])
    expect(olderPage(1, 2000, 1001, 1000).count).toBe(500)
    expect(olderPage(1, 2000, 1001, 0).count).toBe(150)
  })

  it('only a well-formed load_older is accepted inbound', () => {
    expect(parseInbound('{"type":"load_older","before_seq":5,"limit":150}')).toEqual({ before_seq: 5, limit: 150 })
    expect(parseInbound('{"type":"load_older","before_seq":5}')).toEqual({ before_seq: 5 })
    for (const bad of ['garbage', '{"type":"hello"}', '{"type":"load_older"}', '{"type":"load_older","before_seq":"5"}', '{"type":"load_older","before_seq":1.5}', '[1]', 'null'])
      expect(parseInbound(bad)).toBeNull()
    expect(parseInbound(null)).toBeNull()
  })
})

describe('indexed transcript file', () => {
  let dir: string
  let path: string
  const line = (i: number, blocks = 1) =>
    JSON.stringify({ type: 'assistant', uuid: `u${i}`, message: { content: Array.from({ length: blocks }, (_, b) => ({ type: 'text', text: `m${i}.${b}` })) } })
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tfile-'))
    path = join(dir, 's.jsonl')
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('counts entries per line, skips empty lines, reads exact seq ranges from disk', async () => {
    const lines: string[] = []
    for (let i = 1; i <= 100; i++) lines.push(i % 10 === 0 ? JSON.stringify({ type: 'file-history-snapshot' }) : line(i, i % 3 === 0 ? 2 : 1))
    writeFileSync(path, lines.join('\n') + '\n')
    const f = new TranscriptFile(path, normalizeClaudeLine)
    await f.refresh()
    const expected = lines.flatMap((l) => normalizeClaudeLine(l))
    expect(f.total).toBe(expected.length)
    const all = await f.read(1, f.total)
    expect(all.map((e) => e.seq)).toEqual(expected.map((_, i) => i + 1))
    expect(all.map((e) => e.text)).toEqual(expected.map((e) => e.text))
    const mid = await f.read(7, 9)
    expect(mid.map((e) => [e.seq, e.id])).toEqual([7, 8, 9].map((s) => [s, expected[s - 1].id]))
    expect(await f.read(f.total + 1, f.total + 5)).toEqual([])
  })

  it('a half-written line waits for its newline; a missing file is an empty source until it appears', async () => {
    const f = new TranscriptFile(path, normalizeClaudeLine)
    await f.refresh()
    expect([f.total, f.exists]).toEqual([0, false])
    const l = line(1)
    writeFileSync(path, l.slice(0, 10))
    await f.refresh()
    expect(f.total).toBe(0)
    appendFileSync(path, l.slice(10) + '\n')
    await f.refresh()
    expect(f.total).toBe(1)
    expect((await f.read(1, 1))[0]).toMatchObject({ seq: 1, id: 'u1#0', text: 'm1.0' })
  })

  it('a truncated file realigns without replay and seqs keep increasing', async () => {
    writeFileSync(path, [line(1), line(2), line(3)].join('\n') + '\n')
    const f = new TranscriptFile(path, normalizeClaudeLine)
    await f.refresh()
    expect(f.total).toBe(3)
    truncateSync(path, 0)
    await f.refresh()
    expect([f.first, f.total]).toEqual([4, 3])
    appendFileSync(path, line(9) + '\n')
    await f.refresh()
    expect(f.total).toBe(4)
    expect((await f.read(1, 10)).map((e) => [e.seq, e.text])).toEqual([[4, 'm9.0']])
  })

  it('unparsable lines count as one parsed:false entry with a unique id', async () => {
    writeFileSync(path, ['oops', line(1), '{"type":"weird"}'].join('\n') + '\n')
    const f = new TranscriptFile(path, normalizeClaudeLine)
    await f.refresh()
    const es = await f.read(1, 3)
    expect(es.map((e) => [e.seq, e.id, e.parsed])).toEqual([
      [1, 'seq-1', false],
      [2, 'u1#0', true],
      [3, 'seq-3', false],
    ])
  })
})
