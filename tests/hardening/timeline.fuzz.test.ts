// Properties of the timeline recorder and its limit parsing over arbitrary event sequences:
// bounded, never a self-transition, newest first, and the persisted form reloads to the same ring.
import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { createRecorder, parseLimit } from '../../plugins/timeline/index.ts'

const pane = fc.constantFrom('w1:p1', 'w1:p2', 'work/w1:p1', 'w2:p3')
const status = fc.constantFrom('idle', 'working', 'blocked', 'done', 'unknown', '')
const op = fc.oneof(
  { weight: 6, arbitrary: fc.record({ k: fc.constant('status' as const), pane, status, agent: fc.constantFrom('claude', 'pi', ''), dt: fc.integer({ min: 0, max: 60_000 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('gone' as const), pane, dt: fc.integer({ min: 0, max: 60_000 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('rebuild' as const),
      session: fc.constantFrom('default', 'work'),
      rows: fc.array(fc.record({ pane, agent_status: status, agent: fc.constantFrom('claude', 'pi') }), { maxLength: 4 }),
      dt: fc.integer({ min: 0, max: 60_000 }),
    }),
  },
)

type Op = typeof op extends fc.Arbitrary<infer T> ? T : never

function run(ops: Op[], maxEntries: number, backwards = false) {
  let now = 1_700_000_000_000
  const rec = createRecorder({ now: () => now, maxEntries })
  for (const o of ops) {
    now += backwards && o.dt % 3 === 0 ? -o.dt : o.dt
    if (o.k === 'status') {
      const first = rec.status(now, { pane: o.pane, status: o.status, agent: o.agent, session: o.pane.startsWith('work/') ? 'work' : 'default' })
      // The same status again is not a transition.
      expect(rec.status(now, { pane: o.pane, status: o.status })).toBeUndefined()
      if (first) expect(first.to).toBe(o.status)
    } else if (o.k === 'gone') rec.gone(now, o.pane)
    else
      rec.rebuild(
        o.session,
        o.rows.map((r) => ({ ...r, session: o.session })),
        now,
      )
  }
  return { rec, now }
}

describe('timeline recorder (property)', () => {
  it('bounded, no self-transitions, durations never negative, list newest first and filtered', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), fc.integer({ min: 1, max: 30 }), fc.boolean(), fc.integer({ min: 1, max: 40 }), pane, (ops, max, backwards, limit, p) => {
        const { rec } = run(ops, max, backwards)
        const all = rec.entries()
        expect(all.length).toBeLessThanOrEqual(max)
        for (const e of all) {
          expect(e.to).not.toBe('')
          if (e.from !== undefined) expect(e.from).not.toBe(e.to)
          if (e.prev_ms !== undefined) expect(e.prev_ms).toBeGreaterThanOrEqual(0)
        }
        const listed = rec.list(limit, p)
        expect(listed.length).toBeLessThanOrEqual(limit)
        expect(listed.every((e) => e.pane === p)).toBe(true)
        expect(listed).toEqual(
          all
            .filter((e) => e.pane === p)
            .reverse()
            .slice(0, limit),
        )
      }),
      { numRuns: 400 },
    )
  })

  it('what is persisted reloads to the same ring (clock moving forward)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), fc.integer({ min: 1, max: 30 }), (ops, max) => {
        const { rec, now } = run(ops, max)
        const stored = JSON.parse(JSON.stringify(rec.entries()))
        const again = createRecorder({ now: () => now, maxEntries: max, initial: stored })
        expect(again.entries()).toEqual(rec.entries())
        expect(again.list(max)).toEqual(rec.list(max))
      }),
      { numRuns: 300 },
    )
  })
})

describe('GET /timeline limit (property)', () => {
  it('any string: null, or an integer from 1 to 500 that matches its digits', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 12 }), fc.stringMatching(/^\s?\d{1,12}\s?$/), fc.constant(undefined)), (raw) => {
        const n = parseLimit(raw)
        if (raw === undefined) expect(n).toBe(100)
        else if (n !== null) {
          expect(Number.isInteger(n) && n >= 1 && n <= 500).toBe(true)
          expect(n).toBe(Math.min(Number(raw.trim()), 500))
        }
      }),
      { numRuns: 500 },
    )
  })
})
