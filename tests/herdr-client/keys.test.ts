import { describe, expect, it } from 'vitest'
import { isHerdrKey, toHerdrKey } from '../../core/herdr/keys.ts'

describe('herdr key names', () => {
  it('accepts the names herdr accepts', () => {
    for (const k of [
      'esc',
      'Escape',
      'enter',
      'RETURN',
      'tab',
      'up',
      'down',
      'left',
      'right',
      'backspace',
      'bs',
      'space',
      'f1',
      'F12',
      'ctrl+c',
      'ctrl+d',
      'Control+j',
      'ctrl+shift+p',
      'alt+x',
      'shift+tab',
      'cmd+k',
      'hyper+a',
      'C-c',
      'c-c',
      '+',
      'a',
      'A',
      '1',
      'é',
      'minus',
      'double_quote',
      'double-quote',
      'backtick',
      ' esc ',
    ])
      expect([k, isHerdrKey(k)]).toEqual([k, true])
  })

  it('refuses what herdr refuses', () => {
    for (const k of [
      '',
      '  ',
      'home',
      'end',
      'pageup',
      'pagedown',
      'delete',
      'insert',
      'enterr',
      'ctrl++',
      'ctrl+',
      '+c',
      'prefix+c',
      'foo+c',
      'C-d',
      'f13',
      'f0',
      'ctrl+home',
      '\x1b',
      '\r',
    ])
      expect([k, isHerdrKey(k)]).toEqual([k, false])
  })

  it('maps the caret form to ctrl and passes herdr names through', () => {
    expect(toHerdrKey('^c')).toBe('ctrl+c')
    expect(toHerdrKey('^D')).toBe('ctrl+d')
    expect(toHerdrKey('esc')).toBe('esc')
    expect(toHerdrKey(' up ')).toBe('up')
    expect(toHerdrKey('^')).toBe('^')
    expect(toHerdrKey('^cc')).toBeUndefined()
    expect(toHerdrKey(42)).toBeUndefined()
  })
})
