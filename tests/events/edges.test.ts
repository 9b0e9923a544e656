// /events and /timeline answers that need no herdr: auth, 426, 503, bad limits, snapshot failure.
import { describe, test, expect, beforeAll, afterAll } from 'vitest'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { openEvents, upgradeStatus } from './ws-client.ts'
import { withOptions } from './common.ts'

let b: TestBridge
let off: TestBridge
beforeAll(async () => {
  b = await startBridge()
  off = await startBridge({ user: withOptions({ events: { enabled: false }, timeline: { enabled: false } }) })
})
afterAll(async () => {
  await b?.close()
  await off?.close()
})

describe('GET /events', () => {
  test('401 without a token or with an unknown one, before any upgrade', async () => {
    for (const q of ['', '?token=', '?token=nope']) {
      const res = await b.request(`/events${q}`, { token: null })
      expect(res.status).toBe(401)
      expect(await res.text()).toBe('unauthorized')
      expect(await upgradeStatus(`${b.wsUrl}/events${q}`)).toEqual({ status: 401, body: 'unauthorized' })
    }
  })

  test('426 for a valid token without an upgrade', async () => {
    const res = await b.request(`/events?token=${b.adminToken}`, { token: null })
    expect(res.status).toBe(426)
    expect(res.headers.get('upgrade')).toBe('websocket')
    const dev = await b.pair()
    expect((await b.request('/events', { token: dev.bearer })).status).toBe(426)
  })

  test('503 when the event stream is turned off', async () => {
    const res = await off.request(`/events?token=${off.adminToken}`, { token: null })
    expect(res.status).toBe(503)
    expect(await res.text()).toBe('event bus not enabled')
    expect(await upgradeStatus(`${off.wsUrl}/events?token=${off.adminToken}`)).toEqual({ status: 503, body: 'event bus not enabled' })
    // Auth still comes first.
    expect((await off.request('/events?token=bad', { token: null })).status).toBe(401)
  })

  test('a snapshot that cannot be taken closes the socket with 1011', async () => {
    // No herdr runs for this bridge.
    const c = openEvents(`${b.wsUrl}/events?token=${b.adminToken}`)
    const closed = await c.closed
    expect(closed.code).toBe(1011)
    expect(c.frames).toEqual([])
  })
})

describe('GET /timeline', () => {
  test('empty ring, default and capped limits', async () => {
    expect(await (await b.request('/timeline')).json()).toEqual({ entries: [], limit: 100 })
    expect(await (await b.request('/timeline?limit=7&pane=w1:p1')).json()).toEqual({ entries: [], limit: 7 })
    expect(await (await b.request('/timeline?limit=1000')).json()).toEqual({ entries: [], limit: 500 })
  })

  test('400 for a limit that is not a positive integer', async () => {
    for (const l of ['0', '-1', 'abc', '1.5', '', '1e3', ' ']) {
      const res = await b.request(`/timeline?limit=${encodeURIComponent(l)}`)
      expect(res.status, `limit=${l}`).toBe(400)
      expect(await res.text()).toBe('limit must be a positive integer')
    }
  })

  test('401 before anything, 503 without a recorder', async () => {
    expect((await b.request('/timeline?limit=abc', { token: null })).status).toBe(401)
    const res = await off.request('/timeline')
    expect(res.status).toBe(503)
    expect(await res.text()).toBe('timeline recorder not running')
  })
})
