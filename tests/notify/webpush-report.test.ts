import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyWebpush, { topicOf } from '../../plugins/notify-webpush/index.ts'
import { notifyTest } from '../../cli/notify.ts'
import { startStandIn, type StandIn } from './stand-in.ts'
import { browserKeys } from './webpush-crypto.ts'
import type { GetResponses, PostResponses } from '../../plugins/web/app/src/lib/api-types.ts'

/**
 * `bridge notify test` and the app's "Send test alert" (POST /notify/test) say per Web Push
 * subscription what its push service answered; a device is shown only its own subscriptions.
 * Each request follows Apple's and the Push API's constraints: Topic of at most 32 URL-safe
 * base64 characters, TTL and Urgency.
 */

let svc: StandIn
let b: TestBridge

beforeAll(async () => {
  svc = await startStandIn()
  b = await startBridge({
    env: { BRIDGE_WEBPUSH_INSECURE: '1', BRIDGE_WEBPUSH_SUBJECT: 'mailto:ops@example.com' },
    user: { plugins: [pairing, push, [notifyWebpush, { backoffMs: [20, 40] }]] },
  })
})
afterAll(async () => {
  await b?.close()
  await svc?.close()
})

async function subscribe(token: string, path: string): Promise<string> {
  const keys = browserKeys()
  const endpoint = `${svc.url}${path}`
  const r = await b.request('/webpush/subscribe', { method: 'POST', token, json: { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } } })
  expect(r.status).toBe(200)
  return endpoint
}
const label = (device: string, endpoint: string) => `device ${device} (${new URL(endpoint).host} #${createHash('sha256').update(endpoint).digest('hex').slice(0, 8)})`

describe('the test alert, per subscription', () => {
  it('bridge notify test prints each subscription with its push service’s answer; a 410 one is dropped and says so', async () => {
    const phone = await b.pair('phone')
    const laptop = await b.pair('laptop')
    const ok = await subscribe(phone.bearer, '/push/ok')
    const gone = await subscribe(laptop.bearer, '/push/gone')
    svc.answer('/push/gone', 410)
    const lines: string[] = []
    await notifyTest({ url: b.url, dir: b.dataDir, channel: 'webpush', out: (l) => lines.push(l) })
    expect(lines[0]).toBe('webpush  sent to 1 of 2: 1 of 2 failed (see the bridge log)')
    expect(lines.slice(1).sort()).toEqual([`  ✓ ${label(phone.id, ok)}: HTTP 201`, `  ✗ ${label(laptop.id, gone)}: HTTP 410: status 410 (subscription removed)`].sort())
    // Each request: a Topic of at most 32 URL-safe base64 characters, a TTL and an Urgency.
    const req = svc.received.find((r) => r.path === '/push/ok')!
    expect(req.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/)
    expect(req.headers.topic).toBe(topicOf(`${b.bridge.ctx.config.server_id}/test`))
    expect(req.headers.ttl).toBe('600')
    expect(req.headers.urgency).toBe('normal')
    // Gone for good: the next test alert no longer tries it.
    const again: string[] = []
    await notifyTest({ url: b.url, dir: b.dataDir, channel: 'webpush', out: (l) => again.push(l) })
    expect(again).toEqual(['webpush  sent to 1 target', `  ✓ ${label(phone.id, ok)}: HTTP 201`])
  })

  it('POST /notify/test (the app’s Send test alert) reports per channel, with the calling device’s own subscriptions only', async () => {
    const other = await b.pair('tablet')
    await subscribe(other.bearer, '/push/tablet')
    const phone = (await (await b.request('/admin/devices')).json()).devices.find((d: GetResponses['/admin/devices']['devices'][number]) => d.name === 'phone')
    const res = await b.request('/notify/test', { method: 'POST', token: other.bearer, json: {} })
    expect(res.status).toBe(200)
    const body = await res.json()
    const webpush = body.channels.find((c: PostResponses['/notify/test']['channels'][number]) => c.channel === 'webpush')
    expect(webpush).toMatchObject({ channel: 'webpush', sent: 2, total: 2, enabled: true })
    expect(webpush.targets).toEqual([{ target: label(other.id, `${svc.url}/push/tablet`), device: other.id, ok: true, answer: 'HTTP 201' }])
    expect(JSON.stringify(body)).not.toContain(phone.id)
  })
})
