import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { parseClaudeScreen, summarizeClaude, claudePermissionMode, isToolHead } from '../../plugins/kind-claude/screen.ts'
import { parseOpencodeScreen, summarizeOpencode } from '../../plugins/kind-opencode/screen.ts'
import { parseHermesScreen, summarizeHermes } from '../../plugins/kind-hermes/screen.ts'
import { codexScreen as codex, parseCodexScreen } from '../../plugins/kind-codex/screen.ts'
import { summarizeGeneric } from '../../lib/card.ts'
import { projectForm } from '../../plugins/kind-opencode/question-service.ts'
import { stripAnsi, truncate, isRule, isChrome, numberedOption } from '../../lib/text.ts'
import type { SummaryInput } from '../../lib/card.ts'

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')
const input = (screen: string, status: string, extra: Partial<SummaryInput> = {}): SummaryInput => ({
  detection: screen,
  recent: screen,
  title: 'fix the parser',
  status,
  ...extra,
})

describe('claude screens', () => {
  it('permission prompt: three options, ❯ marks the default, the command is the detail', () => {
    const screen = fixture('claude-permission.txt')
    const parse = parseClaudeScreen(screen)
    expect(parse).toEqual({
      question: 'Do you want to proceed?',
      options: [
        { index: 1, label: 'Yes', selected: true },
        { index: 2, label: "Yes, and don't ask again for rm commands in /src/app", selected: false, risky: true },
        { index: 3, label: 'No, and tell Claude what to do differently (esc)', selected: false },
      ],
      context: 'Bash command\nrm -rf build\nRemove the stale build output',
    })
    const s = summarizeClaude(input(screen, 'blocked', { blocked: parse! }))
    expect(s.headline).toBe('Do you want to proceed?')
    expect(s.detail).toBe('Bash command\nrm -rf build\nRemove the stale build output')
  })

  it('single-choice form with "Esc to cancel" gets a key-only esc decline', () => {
    const parse = parseClaudeScreen(fixture('claude-single-choice.txt'))
    expect(parse?.question).toBe('Would you like to proceed?')
    expect(parse?.options).toEqual([
      { index: 1, label: 'Yes, and auto-accept edits', selected: true },
      { index: 0, label: 'No', selected: false, key: 'esc' },
    ])
    // Box borders are stripped from every field.
    expect(parse?.context).toBe("Ready to code?\nHere is Claude's plan:")
  })

  it('question panel: four options, descriptions ignored, question above the menu', () => {
    const parse = parseClaudeScreen(fixture('claude-question.txt'))
    expect(parse).toEqual({
      question: 'Which database should we use for the cache?',
      options: [
        { index: 1, label: 'Postgres', selected: true },
        { index: 2, label: 'SQLite', selected: false },
        { index: 3, label: 'Redis', selected: false },
        { index: 4, label: 'Type something.', selected: false },
      ],
      context: '☐ Database',
    })
  })

  it('a menu whose nearest line above is not a question has an empty question', () => {
    const parse = parseClaudeScreen('──────────\n Pick one\n ❯ 1. A\n   2. B\n')
    expect(parse?.question).toBe('')
    expect(parse?.options.map((o) => o.label)).toEqual(['A', 'B'])
  })

  it('working: the last prose ⏺ block is the detail, tool blocks are skipped', () => {
    const screen = fixture('claude-working.txt')
    const s = summarizeClaude(input(screen, 'working'))
    expect(s).toEqual({
      headline: 'The test expects trailing spaces to be trimmed, but the parser keeps them.',
      detail: "The test expects trailing spaces to be trimmed, but the parser keeps them.\nI'll change the line splitter to trim the end of every line.",
      transcript: [
        '> fix the failing test in parser.test.ts',
        "I'll look at the failing test first.",
        'Read(tests/parser.test.ts)',
        'The test expects trailing spaces to be trimmed, but the parser keeps them.',
        "I'll change the line splitter to trim the end of every line.",
        'Update(src/parser.ts)',
      ],
    })
  })

  it('only tool calls in view: headline is the task title, detail the current step', () => {
    const s = summarizeClaude(input(fixture('claude-tools-only.txt'), 'working'))
    expect(s.headline).toBe('fix the parser')
    expect(s.detail).toBe('Search(pattern: "TODO", path: "src")')
    expect(summarizeClaude(input(fixture('claude-tools-only.txt'), 'working', { title: '' })).headline).toBe('Search(pattern: "TODO", path: "src")')
  })

  it('idle: the last answer, welcome box and prompt chrome left out', () => {
    const s = summarizeClaude(input(fixture('claude-idle.txt'), 'idle'))
    expect(s.headline).toBe('This repository is a small CLI that converts Markdown to HTML.')
    expect(s.detail).toBe('This repository is a small CLI that converts Markdown to HTML.\nIt has one entry point, src/cli.ts, and a test suite under tests/.')
    expect(s.transcript).toEqual([
      '✻ Welcome to Claude Code!',
      '/help for help, /status for your current setup',
      'cwd: /src/app',
      '> what does this repo do?',
      'This repository is a small CLI that converts Markdown to HTML.',
      'It has one entry point, src/cli.ts, and a test suite under tests/.',
    ])
  })

  it('an unrecognised layout parses to nothing and summarizes to the title', () => {
    const screen = fixture('claude-unrecognised.txt')
    expect(parseClaudeScreen(screen)).toBeNull()
    expect(summarizeClaude(input(screen, 'working'))).toMatchObject({ headline: 'fix the parser', detail: 'fix the parser' })
    expect(summarizeClaude(input('', 'idle', { title: '' }))).toEqual({ headline: 'Agent idle', detail: '', transcript: [] })
  })

  it('tool heads are recognised by verb or by Identifier(', () => {
    expect(isToolHead('Bash(npm test)')).toBe(true)
    expect(isToolHead('mcp__github.search-issues(q: "x")')).toBe(true)
    expect(isToolHead('Read 3 files')).toBe(true)
    expect(isToolHead('Reader mode is on')).toBe(false)
    expect(isToolHead('I ran the tests (all green)')).toBe(false)
  })
})

describe('claude permission mode', () => {
  const cases: [string, string | undefined][] = [
    ['  ⏵⏵ bypass permissions on (shift+tab to cycle)', 'bypassPermissions'],
    ['  ⏵⏵ accept edits on (shift+tab to cycle)', 'acceptEdits'],
    ['  ⏸ plan mode on (shift+tab to cycle)', 'plan'],
    ['  ⏵⏵ auto mode on (shift+tab to cycle)', 'auto'],
    ['  ⏵ manual mode on (shift+tab to cycle)', 'default'],
    ['  default mode on', 'default'],
    ['  ⏵⏵ yolo mode on (shift+tab to cycle)', 'yolo'],
    ['  ? for shortcuts', undefined],
    ['', undefined],
  ]
  for (const [line, mode] of cases) {
    it(`${JSON.stringify(line)} → ${mode}`, () => expect(claudePermissionMode(`some output\n${line}\n`)).toBe(mode))
  }
  it('the last mode line on screen wins', () => {
    expect(claudePermissionMode('⏸ plan mode on (shift+tab to cycle)\nlater\n⏵⏵ accept edits on (shift+tab to cycle)')).toBe('acceptEdits')
  })
  it('reads through ANSI colour codes', () => {
    expect(claudePermissionMode('\x1b[38;5;211m⏸ plan mode on\x1b[39m (shift+tab to cycle)')).toBe('plan')
  })
})

describe('opencode screens', () => {
  it('question panel: last ┃ run with numbered lines, first option default, Dismiss on esc', () => {
    expect(parseOpencodeScreen(fixture('opencode-question.txt'))).toEqual({
      question: 'Which backend should the cache use?',
      options: [
        { index: 1, label: 'Redis', selected: true },
        { index: 2, label: 'SQLite', selected: false },
        { index: 3, label: 'Type your own answer', selected: false },
        { index: 0, label: 'Dismiss', selected: false, key: 'esc' },
      ],
    })
  })
  it('working: prose is the last run of plain lines; markers and gutters are not prose', () => {
    const screen = fixture('opencode-working.txt')
    expect(parseOpencodeScreen(screen)).toBeNull()
    const s = summarizeOpencode(input(screen, 'working'))
    expect(s.headline).toBe('The server already has a router, so I will add the endpoint there.')
    expect(s.detail).toBe('The server already has a router, so I will add the endpoint there.\nThen I will add a test for it.')
  })
  it('form projection: one field → question, numbered options, Dismiss, question_panel', () => {
    const form = {
      id: 'f1',
      metadata: { kind: 'question' },
      fields: [
        {
          key: 'q',
          title: 'Backend',
          description: 'Which backend?',
          type: 'select',
          options: [
            { value: 'redis', label: 'Redis' },
            { value: 'sqlite', label: '' },
          ],
          custom: true,
        },
      ],
    }
    expect(projectForm(form)).toEqual({
      question: 'Which backend?',
      options: [
        { index: 1, label: 'Redis', selected: true },
        { index: 2, label: 'sqlite', selected: false },
        { index: 0, label: 'Dismiss', selected: false, key: 'esc' },
      ],
      category: 'question_panel',
      custom: true,
    })
    expect(projectForm({ ...form, fields: [...form.fields, { key: 'r', title: 'Second' }] })).toBeNull()
    expect(projectForm({ ...form, fields: [] })).toBeNull()
    expect(projectForm({ ...form, fields: [{ key: 'q' }] })).toBeNull()
    expect(projectForm({ ...form, fields: [{ key: 'q', title: 'Name?' }] })?.question).toBe('Name?')
  })
})

describe('hermes screens', () => {
  it('blocker panel: question and options inside "needs your input"', () => {
    expect(parseHermesScreen(fixture('hermes-input.txt'))).toEqual({
      question: 'Which environment should I deploy to?',
      options: [
        { index: 1, label: 'staging', selected: true },
        { index: 2, label: 'production', selected: false },
        { index: 3, label: 'Other (type your answer)', selected: false },
      ],
    })
  })
  it('working: the last "Hermes" panel, not reasoning, tickers dropped', () => {
    const screen = fixture('hermes-working.txt')
    expect(parseHermesScreen(screen)).toBeNull()
    const s = summarizeHermes(input(screen, 'working'))
    expect(s.headline).toBe('The suite uses vitest. I added two tests for the')
    expect(s.detail).toBe('The suite uses vitest. I added two tests for the\nparser and both pass.')
    expect(s.transcript).not.toContain('⏱ 4.2s')
  })
})

describe('codex approval', () => {
  it('question, the command as context, › marks the default', () => {
    const screen = fixture('codex-approval.txt')
    const parse = parseCodexScreen(screen)
    expect(parse).toEqual({
      question: 'Would you like to run the following command?',
      options: [
        { index: 1, label: 'Yes, proceed (y)', selected: true },
        { index: 2, label: "Yes, and don't ask again for this command (a)", selected: false, risky: true },
        { index: 3, label: 'No, and tell Codex what to do differently (esc)', selected: false },
      ],
      context: '$ rm -rf dist',
    })
    const s = codex.summarize!(input(screen, 'blocked', { blocked: parse! }))
    expect(s.headline).toBe('Would you like to run the following command?')
    expect(s.detail).toBe('$ rm -rf dist')
  })
})

describe('generic fallback', () => {
  it('the last 12 readable lines; headline the last one', () => {
    const s = summarizeGeneric(input(fixture('generic-long.txt'), 'working'))
    const expected = [...Array.from({ length: 10 }, (_, i) => `compiling module ${i + 9}`), 'build finished in 3.2s', '$']
    expect(s).toEqual({ headline: '$', detail: expected.join('\n'), transcript: expected })
  })
  it('falls back to the detection text, then the title, then the status', () => {
    expect(summarizeGeneric({ detection: 'hello', recent: '', title: 't', status: 'idle' }).headline).toBe('hello')
    expect(summarizeGeneric({ detection: '', recent: '', title: 'the title', status: 'idle' })).toEqual({ headline: 'the title', detail: '', transcript: [] })
    expect(summarizeGeneric({ detection: '─────────', recent: '', title: '', status: 'done' }).headline).toBe('Agent done')
  })
})

describe('text rules', () => {
  it('strips CSI, OSC and control bytes', () => {
    expect(stripAnsi('\x1b[1;31mred\x1b[0m \x1b]0;title\x07ok\x07\r\n')).toBe('red ok\n')
  })
  it('truncates to n code points with an ellipsis', () => {
    expect(truncate('a'.repeat(130))).toBe('a'.repeat(119) + '…')
    expect(truncate('  short  ')).toBe('short')
    expect(Array.from(truncate('😀'.repeat(200))).length).toBe(120)
  })
  it('rules, chrome and numbered options', () => {
    expect(isRule('  ──────  ')).toBe(true)
    expect(isRule('─────')).toBe(false)
    expect(isRule('╭─ title ' + '─'.repeat(20) + '╮')).toBe(true)
    expect(isChrome('❯ ')).toBe(true)
    expect(isChrome('❯ 1. Yes')).toBe(false)
    expect(isChrome('  Esc to cancel')).toBe(true)
    expect(numberedOption('  ❯ 12. Twelve')).toEqual({ index: 12, label: 'Twelve', selected: true })
    expect(numberedOption('1.5 apples')).toBeNull()
  })
})

describe('parsers never throw', () => {
  const kinds = [parseClaudeScreen, parseOpencodeScreen, parseHermesScreen, parseCodexScreen, claudePermissionMode]
  const summaries = [summarizeClaude, summarizeOpencode, summarizeHermes, summarizeGeneric, codex.summarize!]
  const screen = fc.oneof(
    fc.string({ maxLength: 2000 }),
    fc.string({ unit: 'binary', maxLength: 2000 }),
    fc
      .array(
        fc.oneof(
          fc.constantFrom(
            '❯ 1. Yes',
            '  2. No',
            '⏺ Bash(x)',
            '⏺ prose',
            '  ⎿ out',
            '┃ 1. A',
            '┃ ↑↓',
            '╭─ Hermes needs your input ─╮',
            '╰──╯',
            '│ q? │',
            '─'.repeat(30),
            'Esc to cancel',
            '\x1b[31m',
            '?',
            '',
          ),
          fc.string(),
        ),
        { maxLength: 60 },
      )
      .map((ls) => ls.join('\n')),
  )
  it('on arbitrary screens', () => {
    fc.assert(
      fc.property(screen, screen, fc.string(), (a, b, title) => {
        for (const k of kinds) k(a)
        for (const s of summaries) {
          const blocked = parseClaudeScreen(a) ?? undefined
          const out = s({ detection: a, recent: b, title, status: 'blocked', blocked })
          if (typeof out.headline !== 'string' || typeof out.detail !== 'string') throw new Error('summary without strings')
        }
      }),
      { numRuns: 300 },
    )
  })
})
