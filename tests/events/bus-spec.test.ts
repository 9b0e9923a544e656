// Spec 3 §2.1: every subscriber sees events in seq order, even when another subscriber
// publishes from inside its handler (a re-entrant publish must not overtake the event being
// delivered, or an /events client would see a seq gap and then a smaller seq).
import { test, expect } from 'vitest'
import { createBus } from '../../core/bus.ts'

test('a publish from inside a handler does not overtake the event being delivered', () => {
  const bus = createBus({ now: () => 1 })
  bus.subscribe({
    name: 'echo',
    deliver(ev) {
      if (ev.type === 'first') bus.publish('bridge', 'second', {})
    },
  })
  const seen: number[] = []
  bus.subscribe({ name: 'socket', deliver: (ev) => void seen.push(ev.seq) })
  bus.publish('bridge', 'first', {})
  expect(seen).toEqual([1, 2])
})
