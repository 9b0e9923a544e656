/**
 * The conformance suite every agent kind passes (shipped and out of tree), the way unstorage runs
 * one `testDriver` over all its drivers. `testAgentKind(kind)` fuzzes each capability the kind
 * has with fast-check:
 *   - the screen parser, summary and mode reader never throw on any screen, and answer in shape;
 *   - `normalize` never throws on any line (text, JSON, records shaped like the kind's own), its
 *     entries are well formed, and `count(line)` equals the number of entries it yields;
 *   - `locate` never throws on any session value herdr could report, and a session it finds is
 *     inside the bridge's HOME (no `..`, absolute path or NUL byte in a session id takes it out).
 */
import { describe, expect, it, afterAll } from 'vitest'
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, sep } from 'node:path'
import type { AgentKind } from '../../lib/agent-kinds.ts'
import type { AgentInfo } from '../../lib/herdr-types.ts'

export interface KindSamples {
  /** Real lines of the kind's transcript, mixed into the fuzzed ones. */
  lines?: string[]
  /** Real screens of the kind, mixed into the fuzzed ones. */
  screens?: string[]
}

const RUNS = 150

const glyphLine = fc.oneof(
  fc.constantFrom(
    'Do you want to proceed?',
    '❯ 1. Yes',
    '  2. No (esc)',
    '● 1. Allow once',
    '┃ 1. Option A',
    '│ Which one? │',
    '╭─ needs your input ─╮',
    '╰' + '─'.repeat(20) + '╯',
    '─'.repeat(40),
    '⏵⏵ accept edits on (shift+tab to cycle)',
    '\u001b[1m\u001b[32mbold green\u001b[0m',
    '\u001b[2K\r',
    '',
  ),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 0, max: 120 }).map((n) => `  ${n}. ${'x'.repeat(n % 9)}`),
)
const fuzzScreen = fc.tuple(fc.array(glyphLine, { maxLength: 40 }), fc.constantFrom('\n', '\r\n')).map(([ls, nl]) => ls.join(nl))

/** JSON records shaped like the transcripts the kinds read, with wrong types everywhere. */
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.string({ maxLength: 30 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 4 }), tie('record')),
  record: fc.dictionary(
    fc.constantFrom(
      'type',
      'role',
      'message',
      'content',
      'text',
      'id',
      'timestamp',
      'payload',
      'tool_use_id',
      'name',
      'input',
      'output',
      'parts',
      'toolCalls',
      'thoughts',
      'isSidechain',
      'uuid',
      'sessionId',
      'model',
    ),
    tie('value'),
    { maxKeys: 6 },
  ),
})).record
const fuzzLine = (samples: string[]) =>
  fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 100 }),
    jsonish.map((r) => JSON.stringify(r)),
    ...(samples.length ? [fc.constantFrom(...samples), fc.tuple(fc.constantFrom(...samples), fc.nat()).map(([l, n]) => l.slice(0, n % (l.length + 1)))] : []),
  )

const sessionValue = fc.oneof(
  fc.constantFrom('..', '../../etc/passwd', '/etc/passwd', 'a/../../b', 'x\u0000y', '', '.', '~', '%2e%2e', '8f2c1a90-5b7e-4d2a-9c11-3e4f5a6b7c8d'),
  fc.string({ maxLength: 40 }),
  fc.array(fc.constantFrom('..', '/', 'x', '.', '\\'), { maxLength: 8 }).map((p) => p.join('')),
)

function checkParse(p: unknown): void {
  if (p === null) return
  const parse = p as { question: unknown; options: { index: unknown; label: unknown; selected: unknown }[] }
  expect(typeof parse.question).toBe('string')
  expect(Array.isArray(parse.options)).toBe(true)
  for (const o of parse.options) {
    expect(Number.isInteger(o.index) && (o.index as number) >= 0).toBe(true)
    expect(typeof o.label).toBe('string')
    expect(typeof o.selected).toBe('boolean')
  }
}

export function testAgentKind(kind: AgentKind, samples: KindSamples = {}): void {
  describe(`agent kind conformance: ${kind.kind}`, () => {
    const screen = kind.screen
    const screens = samples.screens?.length ? fc.oneof(fuzzScreen, fc.constantFrom(...samples.screens)) : fuzzScreen

    it('declares a non-empty kind id, lower-case', () => {
      expect(kind.kind).toMatch(/^[a-z0-9][a-z0-9_-]*$/)
    })

    if (screen?.parse)
      it('the screen parser never throws and answers null or a question with options', () => {
        fc.assert(
          fc.property(screens, (s) => checkParse(screen.parse!(s))),
          { numRuns: RUNS },
        )
      })

    if (screen?.summarize)
      it('the summary never throws and always has a headline and a detail', () => {
        fc.assert(
          fc.property(screens, screens, fc.string({ maxLength: 120 }), fc.constantFrom('idle', 'working', 'blocked', 'done', 'unknown', ''), (detection, recent, title, status) => {
            const s = screen.summarize!({ detection, recent, title, status })
            expect(typeof s.headline).toBe('string')
            expect(typeof s.detail).toBe('string')
          }),
          { numRuns: RUNS },
        )
      })

    if (screen?.modes)
      it('the permission-mode reader never throws and answers a string or nothing', () => {
        fc.assert(
          fc.property(screens, (s) => {
            const m = screen.modes!.read(s)
            expect(m === undefined || typeof m === 'string').toBe(true)
          }),
          { numRuns: RUNS },
        )
      })

    const t = kind.transcript
    if (t?.normalize)
      it(`normalize never throws, yields well-formed entries${t.count ? ', and count(line) is their number' : ''}`, () => {
        fc.assert(
          fc.property(fuzzLine(samples.lines ?? []), (line) => {
            const entries = t.normalize!(line)
            expect(Array.isArray(entries)).toBe(true)
            for (const e of entries) {
              expect(typeof e.role).toBe('string')
              expect(typeof e.kind).toBe('string')
            }
            if (t.count) expect(t.count(line)).toBe(entries.length)
          }),
          { numRuns: RUNS * 2 },
        )
      })

    if (t?.locate) {
      const home = mkdtempSync(join(tmpdir(), `kind-${kind.kind}-home-`))
      afterAll(() => rmSync(home, { recursive: true, force: true }))
      it('locate never throws, and a session it finds stays inside HOME', async () => {
        const env = { HOME: home, XDG_DATA_HOME: join(home, '.local/share'), XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.local/state') }
        await fc.assert(
          fc.asyncProperty(
            sessionValue,
            fc.constantFrom('session_id', 'path', 'id', 'file'),
            fc.constantFrom(join(home, 'proj'), '/', '../..', ''),
            async (value, sessionKind, cwd) => {
              const agent: AgentInfo = {
                pane_id: 'w1:p1',
                workspace_id: 'w1',
                tab_id: 't1',
                terminal_id: 'x1',
                agent: kind.kind,
                agent_status: 'working',
                cwd,
                agent_session: { source: `herdr:${kind.kind}`, agent: kind.kind, kind: sessionKind, value },
              }
              const r = await t.locate!({ agent, home, env, others: [] })
              if (r.ok) expect(resolve(r.located.path).startsWith(home + sep), `${JSON.stringify(value)} located ${r.located.path}`).toBe(true)
              else expect(typeof r.reason).toBe('string')
            },
          ),
          { numRuns: RUNS },
        )
      })
    }
  })
}
