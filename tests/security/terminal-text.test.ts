import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { logSafe, termSafe } from '../../lib/strings.ts'
import { composeBody, composeTitle } from '../../plugins/push/compose.ts'

/**
 * Text from outside that reaches a terminal (a log line, a CLI table, a notification's text) is
 * escaped by one helper, C1 controls and bidi overrides included; names refuse both at input.
 */
describe('termSafe', () => {
  it('escapes C0, DEL, C1 (U+009B is a one-byte CSI) and bidi controls; keeps other text as it is', () => {
    expect(termSafe('a\u001b[31mb\u0007')).toBe('a\\u001b[31mb\\u0007')
    expect(termSafe('x\u009b31my')).toBe('x\\u009b31my')
    expect(termSafe('invoice\u202Efdp.exe')).toBe('invoice\\u202efdp.exe')
    expect(termSafe('\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u007f')).toBe(
      '\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c\\u202a\\u202b\\u202c\\u202d\\u007f',
    )
    expect(termSafe('line\nnext\ttab\\')).toBe('line\\nnext\\ttab\\\\')
    expect(termSafe('café ✓ 日本 🙂')).toBe('café ✓ 日本 🙂')
    expect(termSafe('y'.repeat(30), 24)).toBe('y'.repeat(23) + '…')
    // logSafe is the same helper with a default cut.
    expect(logSafe('\u009b\u202e')).toBe('\\u009b\\u202e')
  })
})

describe('notification text', () => {
  it('a pane title or a question from the screen reaches the alert escaped, on one line', () => {
    const title = composeTitle('desk', 'build\u001b]0;pwned\u0007 \u202Eexe.txt', 'w1:p1')
    expect(title).toContain('build\\u001b]0;pwned\\u0007 \\u202eexe.txt')
    expect(title).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/)
    const body = composeBody('blocked', { question: 'Run \u009b2J rm?', options: [{ index: 1, label: 'Yes\u001b[8m', selected: false }] })
    expect(body).toBe('Needs you — Run \\u009b2J rm? · 1. Yes\\u001b[8m')
  })
})

describe('device names', () => {
  let b: TestBridge
  beforeAll(async () => {
    b = await startBridge()
  })
  afterAll(async () => {
    await b?.close()
  })

  const pairAs = async (device_name: string) => {
    const { code } = (await (await b.request('/admin/pairing', { method: 'POST' })).json()) as { code: string }
    return b.request('/pair', { method: 'POST', token: null, json: { code, device_name } })
  }

  for (const [what, name] of [
    ['a C1 CSI (U+009B)', 'phone\u009b2J'],
    ['a right-to-left override (U+202E)', 'phone\u202Eenohp'],
    ['a bidi isolate (U+2066)', '\u2066phone'],
  ] as const)
    it(`refuses ${what} in device_name with one line, and pairs nothing`, async () => {
      const before = b.bridge.ctx.devices.list().length
      const r = await pairAs(name)
      expect(r.status).toBe(400)
      expect(await r.text()).toBe('device_name: control characters are not allowed')
      expect(b.bridge.ctx.devices.list()).toHaveLength(before)
    })

  it('accepts names in any script', async () => {
    const r = await pairAs('téléphone de Zoë — 手机 🙂')
    expect(r.status).toBe(200)
    expect(((await r.json()) as { name: string }).name).toBe('téléphone de Zoë — 手机 🙂')
  })
})
