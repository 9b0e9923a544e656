import { describe, it, expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { normalizeClaudeLine } from '../../plugins/kind-claude/transcript/normalize.ts'
import { normalizePiLine } from '../../plugins/kind-pi/normalize.ts'
import { diffForEdit, diffForWrite, diffFromStructuredPatch } from '../../lib/transcript/diffs.ts'
import { capRunes, oneLine, stripAnsi } from '../../lib/transcript/entry.ts'

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
const claude = fixture('claude-kinds.jsonl').map(normalizeClaudeLine)

describe('claude line normalization', () => {
  it('drops bookkeeping lines and enqueue operations', () => {
    expect(claude[0]).toEqual([]) // file-history-snapshot
    expect(claude[10]).toEqual([]) // system whose text is only tags
    expect(claude[12]).toEqual([]) // queue-operation enqueue
  })

  it('user string content is trimmed into one message with id, parent and ts', () => {
    expect(claude[1]).toEqual([{ id: 'u1#0', ts: '2025-01-02T03:04:01.000Z', role: 'user', kind: 'message', text: 'Fix the bug', parsed: true }])
  })

  it('assistant blocks: empty thinking dropped, thinking, text, Bash projection with block indexes', () => {
    expect(claude[2]).toEqual([
      { id: 'a1#1', parent_id: 'u1', ts: '2025-01-02T03:04:02.000Z', role: 'assistant', kind: 'thinking', text: 'Let me look.', parsed: true },
      { id: 'a1#2', parent_id: 'u1', ts: '2025-01-02T03:04:02.000Z', role: 'assistant', kind: 'message', text: 'Looking now.', parsed: true },
      {
        id: 'a1#3',
        parent_id: 'u1',
        ts: '2025-01-02T03:04:02.000Z',
        role: 'assistant',
        kind: 'tool_call',
        tool: { id: 't_bash', name: 'Bash', title: 'Bash', command: 'ls -la\n  /tmp', input_summary: 'ls -la /tmp', subtitle: 'List files' },
        parsed: true,
      },
    ])
  })

  it('Bash result: stdout stripped of ANSI plus the stderr part', () => {
    expect(claude[3][0].result).toEqual({ for_id: 't_bash', ok: true, output_summary: 'out\n[stderr] warn' })
    expect(claude[3][0]).toMatchObject({ kind: 'tool_result', role: 'user', id: 'u2#0', parent_id: 'a1' })
  })

  it('Edit call previews a diff with three context lines; the result diff comes from structuredPatch', () => {
    expect(claude[4][0].tool).toEqual({
      id: 't_edit',
      name: 'Edit',
      title: 'Edit',
      file: 'app.ts',
      input_summary: '/proj/src/app.ts',
      diff: '@@ -3 +3 @@\n c\n d\n e\n-OLD\n+NEW\n f\n g\n h',
    })
    expect(claude[5][0].result).toEqual({ for_id: 't_edit', ok: true, diff: '@@ -10,3 +10,3 @@\n e\n-OLD\n+NEW\n f' })
  })

  it('Write adds every line, Read names the file, other tools summarize their input JSON', () => {
    const [write, read, web] = claude[6]
    expect(write.tool).toEqual({ id: 't_write', name: 'Write', title: 'Write', file: 'new.txt', input_summary: '/proj/new.txt', diff: '@@ -0,0 +1,3 @@\n+one\n+two\n+' })
    expect(read.tool).toEqual({ id: 't_read', name: 'Read', title: 'Read', file: 'README.md', input_summary: '/proj/README.md' })
    expect(web.tool).toEqual({ id: 't_web', name: 'WebFetch', title: 'WebFetch', input_summary: '{"url":"https://example.com","prompt":"summarize it"}' })
  })

  it('error results are not ok and fall back to inline content with images', () => {
    expect(claude[7][0].result).toEqual({ for_id: 't_read', ok: false, output_summary: 'denied\n[image]' })
  })

  it('an interrupted result is not ok even without is_error', () => {
    expect(claude[8][0].result).toEqual({ for_id: 't_web', ok: false, output_summary: 'partial' })
  })

  it('user array: text, image attachment, unknown block passed through unparsed', () => {
    expect(claude[9].map((e) => [e.id, e.kind, e.text, e.parsed])).toEqual([
      ['u6#0', 'message', 'look at this', true],
      ['u6#1', 'attachment', '[image]', true],
      ['u6#2', 'message', undefined, false],
    ])
  })

  it('system content loses its tags; queue removal becomes a user message', () => {
    expect(claude[11]).toEqual([{ id: 's2#0', parent_id: 'u6', ts: '2025-01-02T03:04:11.000Z', role: 'system', kind: 'message', text: 'Compacted history here', parsed: true }])
    expect(claude[13]).toEqual([{ id: '', ts: '2025-01-02T03:04:13.000Z', role: 'user', kind: 'message', text: 'queued prompt', parsed: true }])
  })

  it('unparsable and unknown lines pass through with parsed:false', () => {
    expect(claude[14]).toEqual([{ id: '', role: 'system', kind: 'message', parsed: false }])
    expect(claude[15]).toEqual([{ id: 'm1#0', ts: '2025-01-02T03:04:14.000Z', role: 'assistant', kind: 'message', parsed: false }])
    expect(claude[16]).toEqual([{ id: 'u7#0', ts: '2025-01-02T03:04:15.000Z', role: 'user', kind: 'message', parsed: false }])
    expect(claude[17]).toEqual([{ id: 'a4#0', ts: '2025-01-02T03:04:16.000Z', role: 'assistant', kind: 'message', parsed: false }])
    expect(normalizeClaudeLine('42')).toEqual([{ id: '', role: 'system', kind: 'message', parsed: false }])
  })

  it('a bare-string toolUseResult is the output', () => {
    expect(claude[18][0].result).toEqual({ for_id: 't_write', ok: true, output_summary: 'File created successfully' })
  })

  it('caps output at 4000 runes with truncated, text at 20000 runes', () => {
    const big = 'x'.repeat(5000)
    const line = JSON.stringify({ type: 'user', uuid: 'u', message: { content: [{ type: 'tool_result', tool_use_id: 't', content: big }] } })
    const r = normalizeClaudeLine(line)[0].result!
    expect(r.truncated).toBe(true)
    expect([...r.output_summary!].length).toBe(4000)
    expect(r.output_summary!.endsWith('…')).toBe(true)
    const t = normalizeClaudeLine(JSON.stringify({ type: 'user', uuid: 'u', message: { content: '😀'.repeat(25_000) } }))[0].text!
    expect([...t].length).toBe(20_000)
  })

  it('caps diffs at 400 lines and flags them', () => {
    const content = Array.from({ length: 1000 }, (_, i) => `l${i}`).join('\n')
    const w = diffForWrite(content)
    expect(w.truncated).toBe(true)
    expect(w.diff.split('\n').length).toBe(400)
    const tool = normalizeClaudeLine(
      JSON.stringify({ type: 'assistant', uuid: 'a', message: { content: [{ type: 'tool_use', id: 't', name: 'Write', input: { file_path: '/a/b', content } }] } }),
    )[0].tool!
    expect(tool.diff_truncated).toBe(true)
    const patch = diffFromStructuredPatch([{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: Array.from({ length: 600 }, () => '+y') }])!
    expect(patch.truncated).toBe(true)
    expect(patch.diff.split('\n').length).toBe(400)
    const tur = { structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: Array.from({ length: 600 }, () => '+y') }] }
    const res = normalizeClaudeLine(
      JSON.stringify({ type: 'user', uuid: 'u', message: { content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }, toolUseResult: tur }),
    )[0].result!
    expect(res).toMatchObject({ truncated: true, ok: true })
    expect(res.output_summary).toBeUndefined()
  })

  it('edit preview with nothing in common shows every line', () => {
    expect(diffForEdit('a\nb', 'c').diff).toBe('@@ -1 +1 @@\n-a\n-b\n+c')
  })

  it('text helpers: one-lining, rune caps, ANSI and control stripping', () => {
    expect(oneLine('  a \n\t b  ', 10)).toBe('a b')
    expect(capRunes('abcdef', 4)).toEqual({ text: 'abc…', cut: true })
    expect(capRunes('abcd', 4)).toEqual({ text: 'abcd', cut: false })
    expect(capRunes('😀😀😀', 3)).toEqual({ text: '😀😀😀', cut: false })
    expect(stripAnsi('\x1b[1;31mred\x1b[0m\x1b]0;title\x07 ok\r\x00\ttab\n')).toBe('red ok\ttab\n')
  })
})

describe('pi line normalization', () => {
  const pi = fixture('pi-session.jsonl').map(normalizePiLine)
  it('maps pi messages, tool calls and results onto the same schema', () => {
    expect(pi[0]).toEqual([]) // session header
    expect(pi[1]).toEqual([{ id: 'e1#0', ts: '2025-02-01T10:00:01.000Z', role: 'user', kind: 'message', text: 'hello pi', parsed: true }])
    expect(pi[2].map((e) => e.kind)).toEqual(['thinking', 'message', 'tool_call'])
    expect(pi[2][2].tool).toEqual({ id: 'call_1', name: 'bash', title: 'bash', command: 'echo hi', input_summary: 'echo hi' })
    expect(pi[3]).toEqual([
      {
        id: 'e3#0',
        parent_id: 'e2',
        ts: '2025-02-01T10:00:03.000Z',
        role: 'user',
        kind: 'tool_result',
        result: { for_id: 'call_1', ok: true, output_summary: 'hi' },
        parsed: true,
      },
    ])
    expect(pi[4][0].tool).toMatchObject({ name: 'edit', file: 'a.ts', diff: '@@ -1 +1 @@\n-x\n+y' })
    expect(pi[5][0].result).toEqual({ for_id: 'call_2', ok: false, output_summary: 'no such file' })
    expect(pi[6]).toEqual([])
    expect(pi[7]).toEqual([{ id: '', role: 'system', kind: 'message', parsed: false }])
  })
})

describe('normalize never throws', () => {
  const values = fc.oneof(
    fc.string(),
    fc.json(),
    fc.jsonValue().map((v) => JSON.stringify(v)),
  )
  const shaped = fc
    .record({
      type: fc.constantFrom('user', 'assistant', 'system', 'queue-operation', 'message', 'x'),
      uuid: fc.oneof(fc.string(), fc.integer()),
      message: fc.anything(),
      content: fc.anything(),
      toolUseResult: fc.anything(),
    })
    .map((o) => JSON.stringify(o))
  it('returns entries with role, kind and parsed for arbitrary lines', () => {
    fc.assert(
      fc.property(fc.oneof(values, shaped), (line) => {
        for (const n of [normalizeClaudeLine, normalizePiLine]) {
          const out = n(line)
          expect(Array.isArray(out)).toBe(true)
          for (const e of out) {
            expect(['user', 'assistant', 'system']).toContain(e.role)
            expect(typeof e.parsed).toBe('boolean')
          }
        }
      }),
      { numRuns: 500 },
    )
  })
})
