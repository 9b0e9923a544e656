// Properties the authors' "never throws" checks leave open: the shape the spec promises for
// card parses and summaries, for normalized transcript entries, and for the transcript index
// (seqs gap-free and the same however the file was appended).
import { describe, it, expect, afterAll } from 'vitest'
import fc from 'fast-check'
import { mkdtempSync, writeFileSync, appendFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseClaudeScreen, summarizeClaude, claudePermissionMode } from '../../plugins/kind-claude/screen.ts'
import { parseOpencodeScreen, summarizeOpencode } from '../../plugins/kind-opencode/screen.ts'
import { parseHermesScreen, summarizeHermes } from '../../plugins/kind-hermes/screen.ts'
import { codexScreen as codex, parseCodexScreen } from '../../plugins/kind-codex/screen.ts'
import { summarizeGeneric } from '../../lib/card.ts'
import { normalizeClaudeLine } from '../../plugins/kind-claude/transcript/normalize.ts'
import { normalizePiLine } from '../../plugins/kind-pi/normalize.ts'
import { TranscriptFile } from '../../plugins/transcript/transcript-file.ts'
import { TEXT_CAP, OUTPUT_CAP } from '../../lib/transcript/entry.ts'

const runes = (s: string) => Array.from(s).length

// --- card parsers ---------------------------------------------------------------------------

/** Screens built from the glyphs the parsers key on, with ANSI and junk mixed in. */
const screenLine = fc.oneof(
  fc.constantFrom(
    'Do you want to proceed?',
    '❯ 1. Yes',
    '  2. Yes, and don\u2019t ask again',
    '  3. No, and tell Claude what to do differently (esc)',
    '⏺ Bash(rm -rf build)',
    '  ⎿  output',
    '✻ Working… (esc to interrupt)',
    '┃ 1. Option A',
    '┃ ↑↓ select  enter confirm',
    '╭─ Hermes needs your input ─╮',
    '│ Which one? │',
    '╰' + '─'.repeat(20) + '╯',
    '─'.repeat(40),
    'Enter to select · ↑/↓ to navigate · Esc to cancel',
    '⏵⏵ accept edits on (shift+tab to cycle)',
    '? for shortcuts',
    '\x1b[1;31m❯ 2. Red\x1b[0m',
    '\x1b]0;title\x07',
    '\r',
    '\t',
    '',
  ),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 1, max: 99 }).map((n) => `  ${n}. ${'x'.repeat(n % 7)}`),
)
const screen = fc.tuple(fc.array(screenLine, { maxLength: 50 }), fc.constantFrom('\n', '\r\n')).map(([ls, nl]) => ls.join(nl))

const parsers = { claude: parseClaudeScreen, opencode: parseOpencodeScreen, hermes: parseHermesScreen, codex: parseCodexScreen }
const summaries = { claude: summarizeClaude, opencode: summarizeOpencode, hermes: summarizeHermes, generic: summarizeGeneric, codex: codex.summarize! }

describe('card parsers (property)', () => {
  it('a parse is a question with numbered or keyed options, one line each', () => {
    fc.assert(
      fc.property(screen, (s) => {
        for (const [kind, parse] of Object.entries(parsers)) {
          const p = parse(s)
          if (p === null) continue
          expect(typeof p.question, kind).toBe('string')
          expect(Array.isArray(p.options), kind).toBe(true)
          for (const o of p.options) {
            expect(Number.isInteger(o.index) && o.index >= 0, `${kind} index ${o.index}`).toBe(true)
            expect(typeof o.label).toBe('string')
            expect(o.label, `${kind} label`).not.toMatch(/[\n\r\x1b]/)
            expect(typeof o.selected).toBe('boolean')
            if (o.index === 0) expect(typeof o.key, `${kind}: an option without a number names its key`).toBe('string')
          }
          // Numbers are what the user types: no two options share one.
          const nums = p.options.filter((o) => o.index > 0).map((o) => o.index)
          expect(new Set(nums).size, `${kind} options ${JSON.stringify(p.options)}`).toBe(nums.length)
        }
        const mode = claudePermissionMode(s)
        if (mode !== undefined) expect(typeof mode).toBe('string')
      }),
      { numRuns: 400 },
    )
  })

  it('headline is one line without escape sequences, for every kind and status (spec 2: "always safe to render alone")', () => {
    fc.assert(
      fc.property(screen, screen, fc.string({ maxLength: 200 }), fc.constantFrom('idle', 'working', 'blocked', 'done', 'unknown'), (detection, recent, title, status) => {
        for (const [kind, summarize] of Object.entries(summaries)) {
          const blocked = status === 'blocked' ? (parseClaudeScreen(detection) ?? undefined) : undefined
          const out = summarize({ detection, recent, title, status, blocked })
          expect(out.headline, `${kind} headline`).not.toMatch(/[\n\r\x1b\x07]/)
          expect(typeof out.detail).toBe('string')
          if (out.transcript !== undefined) for (const l of out.transcript) expect(typeof l).toBe('string')
        }
      }),
      { numRuns: 300 },
    )
  })
})

// --- transcript normalization ---------------------------------------------------------------

const id = fc.oneof(fc.string({ maxLength: 12 }), fc.constant('toolu_1'), fc.integer())
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.oneof(fc.string(), fc.anything()) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('thinking'), thinking: fc.oneof(fc.string(), fc.anything()) }, { requiredKeys: ['type'] }),
  fc.record(
    {
      type: fc.constant('tool_use'),
      id,
      name: fc.oneof(fc.constantFrom('Bash', 'Edit', 'Write', 'Read', 'MultiEdit', 'WebFetch', 'Task', 'TodoWrite', 'Grep'), fc.anything()),
      input: fc.oneof(
        fc.record(
          {
            command: fc.anything(),
            description: fc.anything(),
            file_path: fc.anything(),
            old_string: fc.anything(),
            new_string: fc.anything(),
            content: fc.anything(),
            edits: fc.anything(),
          },
          { requiredKeys: [] },
        ),
        fc.anything(),
      ),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('tool_result'),
      tool_use_id: id,
      is_error: fc.anything(),
      content: fc.oneof(fc.string({ maxLength: 6000 }), fc.array(fc.record({ type: fc.constantFrom('text', 'image'), text: fc.anything() })), fc.anything()),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('image'), source: fc.anything() }, { requiredKeys: ['type'] }),
  fc.anything(),
)
const claudeLine = fc
  .record(
    {
      type: fc.constantFrom('user', 'assistant', 'system', 'summary', 'attachment'),
      uuid: id,
      parentUuid: fc.oneof(id, fc.constant(null)),
      timestamp: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.anything(),
      ),
      message: fc.record(
        { role: fc.constantFrom('user', 'assistant', 'x'), content: fc.oneof(fc.string({ maxLength: 30_000 }), fc.array(block, { maxLength: 6 })) },
        { requiredKeys: [] },
      ),
      toolUseResult: fc.anything(),
      isMeta: fc.boolean(),
    },
    { requiredKeys: ['type'] },
  )
  .map((o) => JSON.stringify(o))
const piLine = fc
  .record(
    {
      type: fc.constantFrom('message', 'session', 'model_change', 'x'),
      id,
      parentId: id,
      timestamp: fc.anything(),
      message: fc.record(
        {
          role: fc.constantFrom('user', 'assistant', 'toolResult', 'x'),
          toolCallId: id,
          isError: fc.anything(),
          content: fc.oneof(
            fc.string(),
            fc.array(fc.oneof(block, fc.record({ type: fc.constant('toolCall'), id, name: fc.string(), arguments: fc.anything() })), { maxLength: 5 }),
          ),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['type'] },
  )
  .map((o) => JSON.stringify(o))

function checkEntries(out: ReturnType<typeof normalizeClaudeLine>, where: string): void {
  const ids = out.filter((e) => e.id).map((e) => e.id)
  expect(new Set(ids).size, `${where}: ids unique within a line`).toBe(ids.length)
  for (const e of out) {
    expect(['user', 'assistant', 'system']).toContain(e.role)
    expect(['message', 'thinking', 'tool_call', 'tool_result', 'attachment']).toContain(e.kind)
    if (e.text !== undefined) {
      expect(typeof e.text).toBe('string')
      expect(runes(e.text), `${where}: text cap`).toBeLessThanOrEqual(TEXT_CAP)
    }
    if (e.ts !== undefined) expect(typeof e.ts).toBe('string')
    if (e.parent_id !== undefined) expect(typeof e.parent_id).toBe('string')
    if (e.kind === 'tool_call' && e.parsed) {
      expect(typeof e.tool?.id, `${where}: tool.id`).toBe('string')
      expect(typeof e.tool?.name).toBe('string')
      if (e.tool?.input_summary !== undefined) expect(e.tool.input_summary, `${where}: input_summary is one line`).not.toMatch(/\n/)
    }
    if (e.kind === 'tool_result' && e.parsed) {
      expect(typeof e.result?.for_id, `${where}: for_id`).toBe('string')
      expect(typeof e.result?.ok).toBe('boolean')
      if (e.result?.output_summary !== undefined) expect(runes(e.result.output_summary), `${where}: output cap`).toBeLessThanOrEqual(OUTPUT_CAP)
    }
  }
}

describe('transcript normalization (property)', () => {
  it('claude lines with arbitrary blocks: spec roles and kinds, unique ids, tool ids as strings, caps held', () => {
    fc.assert(
      fc.property(claudeLine, (line) => checkEntries(normalizeClaudeLine(line), 'claude')),
      { numRuns: 400 },
    )
  })
  it('pi lines with arbitrary blocks: the same', () => {
    fc.assert(
      fc.property(piLine, (line) => checkEntries(normalizePiLine(line), 'pi')),
      { numRuns: 400 },
    )
  })
})

// --- the transcript index ---------------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), 'hardening-index-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let fileNo = 0

describe('transcript index (property)', () => {
  const anyLine = fc.oneof(
    claudeLine,
    fc.string({ maxLength: 200 }).map((s) => s.replace(/\n/g, ' ')),
    fc.constantFrom('', '   ', '{', '\r'),
  )
  it('appending in arbitrary chunks indexes the same entries as writing at once; seqs are 1..total with no gap', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyLine, { maxLength: 30 }), fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 12 }), fc.boolean(), async (ls, cuts, crlf) => {
        const text = ls.join(crlf ? '\r\n' : '\n') + (ls.length ? '\n' : '')
        const whole = join(dir, `w${++fileNo}.jsonl`)
        const pieces = join(dir, `p${fileNo}.jsonl`)
        writeFileSync(whole, text)
        writeFileSync(pieces, '')
        const a = new TranscriptFile(whole, normalizeClaudeLine)
        await a.refresh()
        const b = new TranscriptFile(pieces, normalizeClaudeLine)
        const buf = Buffer.from(text)
        let at = 0
        for (let i = 0; at < buf.length; i++) {
          const n = cuts[i % cuts.length]
          appendFileSync(pieces, buf.subarray(at, at + n))
          at += n
          await b.refresh()
        }
        await b.refresh()
        expect(b.total).toBe(a.total)
        const ea = await a.read(1, a.total)
        const eb = await b.read(1, b.total)
        expect(eb).toEqual(ea)
        expect(ea.map((e) => e.seq)).toEqual(Array.from({ length: a.total }, (_, i) => i + 1))
        // Every page boundary reads the same entries as the whole.
        for (let from = 1; from <= a.total; from += 7) expect(await a.read(from, from + 6)).toEqual(ea.slice(from - 1, from + 6))
      }),
      { numRuns: 80 },
    )
  })
})
