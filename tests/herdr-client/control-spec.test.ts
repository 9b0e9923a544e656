import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import type { BusEvent } from '../../core/bus.ts'

/**
 * Spec 1 §7: "POST /approve — 400 body lacks `agent`; everything else is 200 with `applied`".
 * The reference client turns any non-2xx into an error toast, so even a multiplexer that cannot
 * be reached is an ordinary "not applied" answer, with the reason saying why.
 */
describe('POST /approve without a reachable multiplexer', () => {
  let b: TestBridge
  const events: BusEvent[] = []
  beforeAll(async () => {
    b = await startBridge()
    b.bridge.ctx.bus.subscribe({ deliver: (e) => void (e.type === 'approve_applied' && events.push(e)) })
  })
  afterAll(() => b?.close())

  it('answers 200 applied:false with the herdr failure as the reason, pressing nothing', async () => {
    const res = await b.request('/approve', { method: 'POST', json: { agent: 'w1:p1', seq: 3 } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const body = await res.json()
    expect(body).toEqual({ ok: true, applied: false, reason: expect.stringMatching(/^herdr: unreachable: /) })
    expect(body.reason).not.toContain('\n')
    expect(events.at(-1)).toMatchObject({ source: 'bridge', payload: { pane: 'w1:p1', seq: 3, applied: false, reason: body.reason } })
  })

  it('still answers 400 when the body lacks agent', async () => {
    const res = await b.request('/approve', { method: 'POST', json: { seq: 3 } })
    expect([res.status, await res.text()]).toEqual([400, 'want {agent, seq}'])
  })
})
