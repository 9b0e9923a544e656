import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createPacer, createTransitions, type NotifyStatus } from '../../plugins/push/transitions.ts'

describe('transitions', () => {
  it('enter on blocked/done (and between them), leave when a notify status ends or the pane closes', () => {
    const t = createTransitions()
    expect(t.status('a', 'working')).toBeNull()
    expect(t.status('a', 'blocked')).toEqual({ kind: 'enter', status: 'blocked' })
    expect(t.status('a', 'blocked')).toBeNull()
    expect(t.status('a', 'done')).toEqual({ kind: 'enter', status: 'done' })
    expect(t.status('a', 'idle')).toEqual({ kind: 'leave' })
    expect(t.status('a', 'working')).toBeNull()
    expect(t.status('a', 'blocked')).toEqual({ kind: 'enter', status: 'blocked' })
    expect(t.closed('a')).toEqual({ kind: 'leave' })
    expect(t.closed('a')).toBeNull()
    expect(t.closed('never-seen')).toBeNull()
    // A pane first seen already blocked is an entry.
    expect(t.status('c', 'done')).toEqual({ kind: 'enter', status: 'done' })
  })

  it('a listed state is an observation: enter for a notify status, leave otherwise (the service knows what was shown)', () => {
    const t = createTransitions()
    expect(t.observe('a', 'blocked')).toEqual({ kind: 'enter', status: 'blocked' })
    expect(t.observe('b', 'working')).toEqual({ kind: 'leave' })
    // Recorded: the same status again is no change.
    expect(t.status('a', 'blocked')).toBeNull()
    expect(t.current('b')).toBe('working')
  })
})

describe('pacer', () => {
  let fired: [string, NotifyStatus, number][]
  beforeEach(() => {
    vi.useFakeTimers()
    vi.setSystemTime(0)
    fired = []
  })
  afterEach(() => vi.useRealTimers())
  const pacer = (settleMs: number, cooldownMs: number) =>
    createPacer({
      settleMs,
      cooldownMs,
      now: () => Date.now(),
      fire: (pane, status) => {
        fired.push([pane, status, Date.now()])
        p.sent(pane)
      },
    })
  let p: ReturnType<typeof createPacer>
  const advance = (ms: number) => {
    vi.advanceTimersByTime(ms)
  }

  it('with no settle delay and no cooldown an alert fires at once', () => {
    p = pacer(0, 0)
    p.entered('a', 'blocked')
    expect(fired).toEqual([['a', 'blocked', 0]])
  })

  it('a state that ends within the settle delay never alerts; one that holds alerts once it has held', () => {
    p = pacer(2000, 0)
    p.entered('a', 'blocked')
    advance(1999)
    p.left('a')
    advance(5000)
    expect(fired).toEqual([])
    p.entered('a', 'blocked')
    advance(2000)
    expect(fired).toEqual([['a', 'blocked', 8999]])
  })

  it('a flapping agent (blocked/working ten times in a minute) alerts once per cooldown, and once more at its end when still blocked', () => {
    p = pacer(0, 30_000)
    for (let i = 0; i < 10; i++) {
      p.entered('a', 'blocked')
      advance(3000)
      p.left('a')
      advance(3000)
    }
    // Ten entries in 60 s: the first at 0 s alerted, the one at 30 s (cooldown over) too.
    expect(fired.map((f) => f[2])).toEqual([0, 30_000])
    // Blocked again at 61 s and staying: the cooldown from 30 s ends at 60 s, so at once.
    p.entered('a', 'blocked')
    expect(fired).toHaveLength(3)
    // Blocked within the cooldown: held until it ends, then alerted since it still holds.
    p.left('a')
    advance(1000)
    p.entered('a', 'done')
    advance(28_000)
    expect(fired).toHaveLength(3)
    advance(1000)
    expect(fired.at(-1)).toEqual(['a', 'done', 90_000])
  })

  it('panes pace apart, and idle() resolves once nothing is held', async () => {
    p = pacer(1000, 0)
    p.entered('a', 'blocked')
    p.entered('b', 'done')
    let idle = false
    void p.idle().then(() => (idle = true))
    advance(1000)
    await Promise.resolve()
    expect(idle).toBe(true)
    expect(fired.map((f) => f[0]).sort()).toEqual(['a', 'b'])
  })
})
