import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { closeFor, closeReason, historyFrame, LineSplitter, parseAttachQuery, parseCliBytes, parseCliLine, parseResize } from '../../plugins/attach/frames.ts'
import { herdrArgs, herdrEnv } from '../../plugins/attach/relay.ts'

describe('attach query', () => {
  const p = (s: string) => parseAttachQuery(new URLSearchParams(s))
  it('defaults to a control session at 80x24 and validates every option', () => {
    expect(p('pane=w1:p1')).toEqual({ ok: true, query: { pane: 'w1:p1', mode: 'control', cols: 80, rows: 24, takeover: false } })
    expect(p('pane=work/w1:p1&mode=observe&cols=1000&rows=1&takeover=1')).toEqual({ ok: true, query: { pane: 'work/w1:p1', mode: 'observe', cols: 1000, rows: 1, takeover: true } })
    expect(p('')).toEqual({ ok: false, message: 'want ?pane=<pane_id>' })
    expect(p('pane=%20')).toEqual({ ok: false, message: 'want ?pane=<pane_id>' })
    expect(p('pane=a&rows=1001')).toEqual({ ok: false, message: 'rows: want an integer 1..1000' })
    expect(p('pane=a&cols=1.5')).toEqual({ ok: false, message: 'cols: want an integer 1..1000' })
    expect(p('pane=a&takeover=yes')).toEqual({ ok: false, message: 'takeover: want 1 or 0' })
  })
})

describe('client control frames', () => {
  it('accepts only a well-formed resize within 1..1000', () => {
    expect(parseResize('{"type":"resize","cols":100,"rows":30}')).toEqual({ cols: 100, rows: 30 })
    for (const bad of [
      'ls\r',
      '{"type":"resize","cols":0,"rows":30}',
      '{"type":"resize","cols":100,"rows":1001}',
      '{"type":"resize","cols":"100","rows":30}',
      '{"type":"mode"}',
      'null',
      '[]',
    ]) {
      expect(parseResize(bad)).toBeNull()
    }
  })
})

describe('CLI lines', () => {
  it('decodes frames and closes; ignores anything else', () => {
    expect(parseCliLine('{"bytes":"aGk=","encoding":"ansi","full":true,"height":40,"seq":1,"type":"terminal.frame","width":120}')).toEqual({
      type: 'frame',
      bytes: Buffer.from('hi'),
    })
    expect(parseCliLine('{"reason":null,"type":"terminal.closed"}')).toEqual({ type: 'closed', reason: null })
    expect(parseCliLine('herdr: oops')).toBeNull()
    expect(parseCliLine('')).toBeNull()
  })

  // The relay reads lines as bytes and slices a frame's base64 out without JSON.parse: every line
  // must get the answer the JSON parse gives.
  const same = (text: string): void => {
    expect(parseCliBytes(Buffer.from(text))).toEqual(parseCliLine(Buffer.from(text).toString('utf8')))
  }

  it('reads a frame line as bytes exactly as parseCliLine reads its text', () => {
    const frame = '{"bytes":"aGk=","encoding":"ansi","full":true,"height":40,"seq":1,"type":"terminal.frame","width":120}'
    expect(parseCliBytes(Buffer.from(frame))).toEqual({ type: 'frame', bytes: Buffer.from('hi') })
    expect(parseCliBytes(Buffer.from(frame + '\r'))).toEqual({ type: 'frame', bytes: Buffer.from('hi') })
    for (const text of [
      frame,
      '{"bytes":"aGk=","reason":"gone","type":"terminal.closed"}',
      '{"bytes":"aGk=","bytes":"b2s=","type":"terminal.frame"}',
      '{"bytes":"a\\/k=","type":"terminal.frame"}',
      '{"bytes":"aGk\tx","type":"terminal.frame"}',
      '{"bytes":"aGk=aGk=","type":"terminal.frame"}',
      '{"bytes":"aGké","type":"terminal.frame"}',
      '{"bytes":"aGk="}',
      '{"bytes":"aGk=","type":"terminal.frame"',
      '{"bytes":"aGk=","type":"terminal.frame"}{}',
      '{"bytes":"aGk=","nested":{"type":"terminal.frame"},"type":"x"}',
      '{"bytes":"","type":"terminal.frame"}',
      '{"bytes":"',
      '{"reason":null,"type":"terminal.closed"}',
      ' {"bytes":"aGk=","type":"terminal.frame"}',
      'herdr: oops',
      '',
    ])
      same(text)
  })

  it('agrees with parseCliLine on any frame, in any key order, and on arbitrary text', () => {
    const key = fc.constantFrom('encoding', 'full', 'height', 'seq', 'type', 'width', 'reason', 'bytes')
    const value = fc.oneof(fc.constantFrom('terminal.frame', 'terminal.closed', 'ansi', null, true, 40), fc.string({ maxLength: 8 }))
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.tuple(key, value), { maxLength: 6 }), fc.boolean(), (bytes, extra, sorted) => {
        const fields: [string, unknown][] = [['bytes', Buffer.from(bytes).toString('base64')], ['type', 'terminal.frame'], ...extra]
        if (sorted) fields.sort((a, b) => a[0].localeCompare(b[0]))
        same(`{${fields.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`)
      }),
      { numRuns: 2000 },
    )
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (s) => same(`{"bytes":"${s}`)),
      { numRuns: 2000 },
    )
  })

  it('splits a stream into the same lines however it is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 12 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 8 }), (lines, crlf, cuts) => {
        const text = lines.map((l) => l.replace(/[\r\n]/g, '') + (crlf ? '\r\n' : '\n')).join('')
        const whole = Buffer.from(text + 'tail')
        const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b)
        const got: string[] = []
        const splitter = new LineSplitter()
        let from = 0
        for (const cut of [...at, whole.length]) {
          splitter.push(whole.subarray(from, cut), (l) => got.push(l.toString('utf8')))
          from = cut
        }
        splitter.end((l) => got.push(l.toString('utf8')))
        expect(got).toEqual([...lines.map((l) => l.replace(/[\r\n]/g, '')), 'tail'])
      }),
    )
  })

  it('maps herdr close reasons to close codes', () => {
    expect(closeFor('terminal attach failed: terminal term_1 already has an attached client; retry with --takeover').code).toBe(4409)
    expect(closeFor('terminal attach taken over')).toEqual({ code: 4001, reason: 'taken over by another client' })
    expect(closeFor('terminal attach ended: terminal term_1 not found')).toEqual({ code: 1000, reason: 'terminal attach ended: terminal term_1 not found' })
    expect(closeFor(null)).toEqual({ code: 1000, reason: 'terminal stream ended' })
  })

  it('keeps close reasons within 123 bytes on a character boundary', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (s) => {
        const r = closeReason(s)
        expect(Buffer.byteLength(r)).toBeLessThanOrEqual(123)
        expect(Buffer.from(r, 'utf8').toString('utf8')).toBe(r)
      }),
    )
  })
})

describe('history seed', () => {
  it('uses CRLF endings idempotently and is null when blank', () => {
    expect(historyFrame('a\nb\r\nc\n\n')!.toString()).toBe('a\r\nb\r\nc\r\n')
    expect(historyFrame('\x1b[31mred\x1b[0m\n')!.toString()).toBe('\x1b[31mred\x1b[0m\r\n')
    expect(historyFrame('\n\n  \n')).toBeNull()
    expect(historyFrame('\x1b[0m\n')).toBeNull()
  })
})

describe('CLI invocation', () => {
  it('puts --session before the subcommand and --takeover only on control', () => {
    expect(herdrArgs({ ref: { session: 'default', id: 'w1:p1', qualified: 'w1:p1' }, mode: 'control', cols: 80, rows: 24, takeover: false })).toEqual([
      'terminal',
      'session',
      'control',
      'w1:p1',
      '--cols',
      '80',
      '--rows',
      '24',
    ])
    expect(herdrArgs({ ref: { session: 'work', id: 'w1:p1', qualified: 'work/w1:p1' }, mode: 'control', cols: 100, rows: 30, takeover: true })).toEqual([
      '--session',
      'work',
      'terminal',
      'session',
      'control',
      'w1:p1',
      '--takeover',
      '--cols',
      '100',
      '--rows',
      '30',
    ])
    expect(herdrArgs({ ref: { session: 'work', id: 'w1:p1', qualified: 'work/w1:p1' }, mode: 'observe', cols: 100, rows: 30, takeover: true })).toEqual([
      '--session',
      'work',
      'terminal',
      'session',
      'observe',
      'w1:p1',
      '--cols',
      '100',
      '--rows',
      '30',
    ])
  })

  it('drops empty socket overrides and a stray HERDR_SESSION for the default session', () => {
    expect(herdrEnv({ HOME: '/h', HERDR_SOCKET_PATH: '', HERDR_SESSION: 'work', XDG_CONFIG_HOME: '/x' }, 'default')).toEqual({ HOME: '/h', XDG_CONFIG_HOME: '/x' })
    expect(herdrEnv({ HERDR_SOCKET_PATH: '/s.sock', HERDR_SESSION: 'work' }, 'work')).toEqual({ HERDR_SOCKET_PATH: '/s.sock', HERDR_SESSION: 'work' })
  })
})
