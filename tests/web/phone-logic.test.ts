// The phone controls' pure logic (no browser): the readable terminal lines, the composer's text
// and routes, errors in words, password prompts; and the bridge's answer guards.
import { describe, expect, it } from 'vitest'
import { readableLines, READ_FONT } from '../../plugins/web/app/src/lib/readable.ts'
import { asksForSecret, attachTarget, sendText, wordsFor } from '../../plugins/web/app/src/lib/compose.ts'
import { ApiError } from '../../plugins/web/app/src/lib/api.ts'
import { findOption, optionMissing, readOptionRef, readSendSeq, sendSeqRefusal } from '../../plugins/control/guard.ts'
import { markRisky } from '../../lib/text.ts'

const buffer = (rows: Array<[string, boolean?]>) => ({
  length: rows.length,
  getLine: (y: number) => (rows[y] ? { isWrapped: !!rows[y][1], translateToString: () => rows[y][0] } : undefined),
})

describe('readable terminal lines', () => {
  it('joins soft-wrapped rows, folds blank runs, marks rules, drops trailing blanks', () => {
    const lines = readableLines(buffer([['> first line that '], ['wrapped on', true], [''], [''], [''], ['─'.repeat(40)], ['❯ '], ['  ? for shortcuts   '], [''], ['']]))
    expect(lines).toEqual([{ text: '> first line that wrapped on' }, { text: '' }, { text: '', rule: true }, { text: '❯' }, { text: '  ? for shortcuts' }])
  })

  it('keeps the last lines only, and short dashes as text', () => {
    expect(readableLines(buffer([['a'], ['b'], ['c']]), 2)).toEqual([{ text: 'b' }, { text: 'c' }])
    expect(readableLines(buffer([['---']]))).toEqual([{ text: '---' }])
  })

  it('never goes below 11 px', () => {
    expect([READ_FONT.clamp(4), READ_FONT.clamp(13.4), READ_FONT.clamp(99)]).toEqual([11, 13, 22])
  })
})

describe('composer', () => {
  it('sends the text then each ready path', () => {
    expect(sendText('look  ', [{ path: '/r/a.md' }, { path: '/r/b.png' }])).toBe('look /r/a.md /r/b.png')
    expect(sendText('', [{ path: '/r/a.md' }])).toBe('/r/a.md')
    expect(sendText('just text', [])).toBe('just text')
  })

  it('routes pictures the bridge takes to /image and the rest to /file with the name', () => {
    expect(attachTarget(new File(['x'], 'a.png', { type: 'image/png' }), 'w/w1:p2')).toBe('/image?pane=w%2Fw1%3Ap2')
    expect(attachTarget(new File(['x'], 'notes.md', { type: 'text/markdown' }), 'w1:p1')).toBe('/file?pane=w1%3Ap1&name=notes.md')
    expect(attachTarget(new Blob(['x'], { type: 'application/pdf' }), 'w1:p1')).toBe('/file?pane=w1%3Ap1')
  })

  it('says errors in words, without a status code', () => {
    expect(wordsFor(new ApiError(415, '415: this file is a zip archive; send pdf, docx, pptx, images or text'))).toBe(
      'this file is a zip archive; send pdf, docx, pptx, images or text',
    )
    expect(wordsFor(new ApiError(413, '413: body over the 25 MiB limit of /file'))).toBe('this file is too large: images up to 10 MiB, other files up to 25 MiB')
    expect(wordsFor(new ApiError(0, 'home is unreachable'))).toBe('home is unreachable')
  })

  it('spots a password or passphrase prompt on the last lines only', () => {
    expect(asksForSecret('Enter the passphrase for the deploy key:')).toBe(true)
    expect(asksForSecret('[sudo] password for dev: ')).toBe(true)
    expect(asksForSecret(undefined, 'Password?')).toBe(true)
    expect(asksForSecret('I changed the password hashing in auth.ts.')).toBe(false)
    expect(asksForSecret('Password:\nok\nnext\nthen done')).toBe(false)
  })
})

describe('answer guards', () => {
  it('reads /send seq and /approve option', () => {
    expect([readSendSeq(undefined), readSendSeq(7), readSendSeq(' 12 '), readSendSeq(-1), readSendSeq(1.5), readSendSeq('x')]).toEqual([
      {},
      { seq: 7 },
      { seq: 12 },
      { error: "seq must be a whole number: the agent's state_change_seq" },
      { error: "seq must be a whole number: the agent's state_change_seq" },
      { error: "seq must be a whole number: the agent's state_change_seq" },
    ])
    expect([readOptionRef(undefined), readOptionRef(2), readOptionRef('3'), readOptionRef('ESC'), readOptionRef(0), readOptionRef(true)]).toEqual([
      null,
      { index: 2 },
      { index: 3 },
      { key: 'esc' },
      { error: "option must be the card's 1-based index or an option's key" },
      { error: "option must be the card's 1-based index or an option's key" },
    ])
  })

  it('finds the option on screen by index or key, and refuses a moved seq', () => {
    const options = [
      { index: 1, label: 'Yes', selected: true },
      { index: 0, label: 'No', selected: false, key: 'esc' },
    ]
    expect(findOption(options, { index: 1 })?.label).toBe('Yes')
    expect(findOption(options, { key: 'esc' })?.label).toBe('No')
    expect(findOption(options, { index: 2 })).toBeUndefined()
    expect([optionMissing({ index: 2 }), optionMissing({ key: 'tab' })]).toEqual(['option 2 is not on screen', 'option tab is not on screen'])
    expect(sendSeqRefusal({ state_change_seq: 4 }, 4)).toBe('')
    expect(sendSeqRefusal({ state_change_seq: 5 }, 4)).toBe('stale seq: send carried 4, agent now at 5')
    expect(sendSeqRefusal(null, 4)).toBe('no agent in this pane: a reply with seq needs one')
  })

  it('marks only the options that widen permissions as risky', () => {
    const marked = markRisky(
      ['Yes', "Yes, and don't ask again for rm commands", 'Yes, allow all edits during this session (shift+tab)', 'Always allow', 'No'].map((label, i) => ({
        index: i + 1,
        label,
        selected: i === 0,
      })),
    )
    expect(marked.map((o) => !!o.risky)).toEqual([false, true, true, true, false])
  })
})
