/**
 * The shared screen rules know only key hints every agent draws; a kind's own furniture (claude's
 * banner and mode line) is that kind's list, so the generic summary shows it and claude hides it.
 */
import { describe, expect, it } from 'vitest'
import { isChrome, readableLines, summarizeGeneric, unbox } from '../../lib/kit.ts'
import { claudeTranscript } from '../../plugins/kind-claude/screen.ts'

const screen = [
  '╭──────────────────────────╮',
  '│ ✻ Welcome back!           │',
  '│   Claude Code v2.1.3      │',
  '╰──────────────────────────╯',
  '⏺ Done: the cache TTL is 60 s.',
  '  ⏵⏵ accept edits on (shift+tab to cycle)',
  '  ? for shortcuts',
  '❯ ',
].join('\n')

describe('screen chrome', () => {
  it('shared hints are chrome for every kind; a kind adds its own phrases', () => {
    expect(isChrome('  ? for shortcuts')).toBe(true)
    expect(isChrome('Esc to interrupt')).toBe(true)
    expect(isChrome('  Claude Code v2.1.3')).toBe(false)
    expect(isChrome('  Claude Code v2.1.3', ['claude code v'])).toBe(true)
    expect(readableLines(['a', 'banner here', '? for shortcuts'], ['banner'])).toEqual(['a'])
  })

  it("unbox strips one border glyph and its space at each end, for the default set and a kind's own", () => {
    for (let round = 0; round < 2; round++) {
      expect(unbox('  │ ✻ Welcome back!   │')).toBe('  ✻ Welcome back!  ')
      expect(unbox('┃ npm test ┃  ')).toBe('npm test')
      expect(unbox('▌ $ npm test', '│┃▌')).toBe('$ npm test')
      expect(unbox('▌ $ npm test')).toBe('▌ $ npm test')
      expect(unbox('║ ║ nested ║ ║', '║')).toBe('║ nested ║')
    }
  })

  it('claude hides its banner and mode line; the generic summary keeps them as content', () => {
    expect(claudeTranscript(screen)).toEqual(['Done: the cache TTL is 60 s.'])
    expect(summarizeGeneric({ detection: '', recent: screen, title: '', status: 'idle' }).transcript).toEqual([
      '✻ Welcome back!',
      'Claude Code v2.1.3',
      '⏺ Done: the cache TTL is 60 s.',
      '⏵⏵ accept edits on (shift+tab to cycle)',
    ])
  })
})
