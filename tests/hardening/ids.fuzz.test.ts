import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { qualify, stripIds, splitId, SessionConflictError } from '../../core/herdr/ids.ts'

const sessionName = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/).filter((s) => s !== '.' && s !== '..' && s !== 'default')
const bareId = fc.stringMatching(/^w[1-9A-Z]{1,3}(:[pt][1-9][0-9]{0,2})?$/)

/** herdr-shaped values: objects with id keys at any depth among other keys. */
const herdrValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.record({ pane_id: bareId, workspace_id: bareId, label: fc.string(), nested: tie('value') }, { requiredKeys: [] }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
  ),
})).value

describe('session-qualified ids (property)', () => {
  it('strip(qualify(x)) gives back x and the session, for any herdr-shaped value', () => {
    fc.assert(
      fc.property(sessionName, herdrValue, (session, value) => {
        const q = qualify(session, value)
        const { session: s, value: back } = stripIds(q)
        expect(back).toEqual(value)
        // A value with no id keys carries no session: it belongs to the default one.
        if (JSON.stringify(q) !== JSON.stringify(value)) expect(s).toBe(session)
      }),
      { numRuns: 300 },
    )
  })

  it('never throws on arbitrary input except to report mixed sessions', () => {
    fc.assert(
      fc.property(fc.anything(), fc.option(fc.string(), { nil: undefined }), (value, explicit) => {
        try {
          stripIds(value, explicit)
        } catch (err) {
          expect(err).toBeInstanceOf(SessionConflictError)
        }
      }),
      { numRuns: 500 },
    )
  })

  it('splits at the first slash only, and "default/" means the default session', () => {
    fc.assert(
      fc.property(sessionName, fc.string(), (session, rest) => {
        expect(splitId(`${session}/${rest}`)).toEqual({ session, id: rest })
        expect(splitId(`default/${rest}`)).toEqual({ session: 'default', id: rest })
      }),
    )
  })

  it('refuses params that mix two sessions, or contradict the explicit one', () => {
    expect(() => stripIds({ pane_id: 'a/w1:p1', params: { workspace_id: 'b/w1' } })).toThrow(SessionConflictError)
    expect(() => stripIds({ pane_id: 'a/w1:p1' }, 'b')).toThrow('session b contradicts ids of session a')
    expect(stripIds({ pane_id: 'a/w1:p1' }, 'a')).toEqual({ session: 'a', value: { pane_id: 'w1:p1' } })
    expect(stripIds({ cwd: '/x/y' }, 'work')).toEqual({ session: 'work', value: { cwd: '/x/y' } })
    expect(stripIds({ cwd: '/x/y' }, '')).toEqual({ session: 'default', value: { cwd: '/x/y' } })
  })
})

describe('deep input', () => {
  it('strips and qualifies 10,000-level nesting without overflowing the stack', () => {
    let deep: Record<string, unknown> = { pane_id: 'work/w1:p1' }
    for (let i = 0; i < 10_000; i++) deep = { a: deep }
    const top = { pane_id: 'work/w1:p2', nested: deep }
    expect(stripIds(top).value.pane_id).toBe('w1:p2')
    expect(() => qualify('work', deep)).not.toThrow()
  })
})
