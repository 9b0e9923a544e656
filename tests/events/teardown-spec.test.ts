// Spec 3 §7: on server teardown an /events socket is closed with 1000 or 4000 (the client
// reconnects either way); nothing else.
import { test, expect, afterAll } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import { openEvents } from './ws-client.ts'

let st: Stack
afterAll(async () => {
  await st?.close()
})

test('bridge shutdown closes /events sockets with 1000', async () => {
  st = await startStack()
  const c = openEvents(`${st.bridge.wsUrl}/events?token=${st.bridge.adminToken}`)
  await c.next((f) => f.type === 'snapshot')
  await st.bridge.bridge.close()
  const closed = await c.closed
  expect(closed.code).toBe(1000)
  expect(
    c.frames
      .filter((f) => f.type !== 'heartbeat')
      .slice(1)
      .every((f) => typeof f.seq === 'number'),
  ).toBe(true)
})
