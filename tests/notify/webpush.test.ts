import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createConsola } from 'consola'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import type { BusEvent } from '../../core/bus.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyWebpush, { topicOf } from '../../plugins/notify-webpush/index.ts'
import { createSubscriptionStore, type WebPushSubscription } from '../../plugins/notify-webpush/subscriptions.ts'
import { createBridgeStorage } from '../../storage/index.ts'
import { startStandIn, type StandIn } from './stand-in.ts'
import { browserKeys, checkVapid, decrypt, type BrowserKeys } from './webpush-crypto.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

/**
 * Web Push end to end without Firebase: the real bridge with the push and webpush plugins, a
 * push-service stand-in on loopback, and the browser's side (decryption, VAPID check) done
 * from the RFCs with node:crypto.
 */

let svc: StandIn
let b: TestBridge
const events: BusEvent[] = []
/** The bridge's log lines from info up, as `<type> <message>`. */
const lines: string[] = []

beforeAll(async () => {
  svc = await startStandIn()
  b = await startBridge({
    env: { BRIDGE_WEBPUSH_INSECURE: '1', BRIDGE_WEBPUSH_SUBJECT: 'mailto:ops@example.com' },
    log: createConsola({ level: 3, reporters: [{ log: (o) => void lines.push(`${o.type} ${o.args.join(' ')}`) }] }).withTag('bridge'),
    user: { plugins: [pairing, push, [notifyWebpush, { backoffMs: [20, 40], retryAfterCapMs: 1500 }]] },
  })
  b.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
})
afterAll(async () => {
  await b?.close()
  await svc?.close()
})

const status = (pane: string, agent_status: string) =>
  b.bridge.ctx.bus.publish('multiplexer', 'pane_agent_status_changed', { pane_id: pane, workspace_id: pane.split(':')[0], agent: 'claude', agent_status, session: 'default' })

async function subscribe(token: string | undefined, path: string): Promise<BrowserKeys & { endpoint: string }> {
  const keys = browserKeys()
  const endpoint = `${svc.url}${path}`
  const r = await b.request('/webpush/subscribe', { method: 'POST', token, json: { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth }, expirationTime: null } })
  expect(r.status).toBe(200)
  expect(await r.json()).toEqual({ ok: true })
  return { ...keys, endpoint }
}

/** How the log names a subscription: device, push service, and the endpoint's hash only. */
const label = (device: string, endpoint: string) => `device ${device} (${new URL(endpoint).host} #${createHash('sha256').update(endpoint).digest('hex').slice(0, 8)})`

const subs = () => JSON.parse(readFileSync(join(b.dataDir, 'plugins/notify-webpush/webpush-subscriptions.json'), 'utf8')) as { device: string; endpoint: string }[]

describe('web push key and subscriptions', () => {
  it('makes a VAPID key pair once, keeps it 0600, and serves the public key to devices only', async () => {
    const file = join(b.dataDir, 'plugins/notify-webpush/webpush-vapid.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const stored = JSON.parse(readFileSync(file, 'utf8'))
    expect((await b.request('/webpush/key', { token: null })).status).toBe(401)
    const d = await b.pair('key reader')
    const r = await b.request('/webpush/key', { token: d.bearer })
    expect(r.status).toBe(200)
    const { public_key } = (await r.json()) as { public_key: string }
    expect(public_key).toBe(stored.public_key)
    const raw = Buffer.from(public_key, 'base64url')
    expect(raw.length).toBe(65)
    expect(raw[0]).toBe(4)
  })

  it('refuses bad bodies with 400 and one line', async () => {
    const d = await b.pair('bad bodies')
    const k = browserKeys()
    const post = (body: string) => b.request('/webpush/subscribe', { method: 'POST', token: d.bearer, body, headers: { 'content-type': 'application/json' } })
    const cases: [string, string][] = [
      ['{not json', 'body is not valid JSON'],
      [JSON.stringify({ endpoint: `${svc.url}/x` }), 'keys: want a PushSubscription: {endpoint, keys: {p256dh, auth}}'],
      [JSON.stringify({ endpoint: `${svc.url}/x`, keys: 'k' }), 'keys: want {p256dh, auth}'],
      [JSON.stringify({ endpoint: `${svc.url}/x`, keys: { p256dh: k.p256dh } }), 'keys.auth: want {p256dh, auth}'],
      [JSON.stringify({ endpoint: `${svc.url}/x`, keys: { p256dh: k.p256dh.slice(0, 40), auth: k.auth } }), 'keys.p256dh: want 65 bytes as base64url (an uncompressed P-256 key)'],
      [JSON.stringify({ endpoint: `${svc.url}/x`, keys: { p256dh: k.p256dh, auth: Buffer.alloc(12).toString('base64url') } }), 'keys.auth: want 16 bytes as base64url'],
      [JSON.stringify({ endpoint: 'not a url', keys: { p256dh: k.p256dh, auth: k.auth } }), 'endpoint: want a URL'],
      [
        JSON.stringify({ endpoint: 'ftp://push.example/x', keys: { p256dh: k.p256dh, auth: k.auth } }),
        'endpoint: want an https: URL (BRIDGE_WEBPUSH_INSECURE=1 also allows http:)',
      ],
    ]
    for (const [body, error] of cases) {
      const r = await post(body)
      expect(r.status, body).toBe(400)
      expect(await r.json(), body).toEqual({ error })
    }
    expect((await b.request('/webpush/unsubscribe', { method: 'POST', token: d.bearer, json: {} })).status).toBe(400)
  })

  it('allows http: endpoints only with BRIDGE_WEBPUSH_INSECURE=1', async () => {
    const strict = await startBridge({ user: { plugins: [pairing, push, notifyWebpush] } })
    try {
      const k = browserKeys()
      const r = await strict.request('/webpush/subscribe', { method: 'POST', json: { endpoint: `${svc.url}/strict`, keys: { p256dh: k.p256dh, auth: k.auth } } })
      expect(r.status).toBe(400)
      expect(await r.json()).toEqual({ error: 'endpoint: want an https: URL (BRIDGE_WEBPUSH_INSECURE=1 also allows http:)' })
      const ok = await strict.request('/webpush/subscribe', { method: 'POST', json: { endpoint: 'https://push.example/strict', keys: { p256dh: k.p256dh, auth: k.auth } } })
      expect(ok.status).toBe(200)
      // The admin token subscribes as the device named `web`.
      const web = (await (await strict.request('/admin/devices')).json()).devices.find((x: GetResponses['/admin/devices']['devices'][number]) => x.name === 'web')
      expect(JSON.parse(readFileSync(join(strict.dataDir, 'plugins/notify-webpush/webpush-subscriptions.json'), 'utf8')).map((s: WebPushSubscription) => s.device)).toEqual([
        web.id,
      ])
    } finally {
      await strict.close()
    }
  })

  it('keeps at most 10 subscriptions per device, dropping the oldest', async () => {
    const d = await b.pair('many browsers')
    for (let i = 0; i < 12; i++) await subscribe(d.bearer, `/many/${i}`)
    const mine = subs()
      .filter((s) => s.device === d.id)
      .map((s) => s.endpoint.replace(svc.url, ''))
    expect(mine).toEqual(Array.from({ length: 10 }, (_, i) => `/many/${i + 2}`))
    // Unsubscribing removes exactly that one.
    const r = await b.request('/webpush/unsubscribe', { method: 'POST', token: d.bearer, json: { endpoint: `${svc.url}/many/5` } })
    expect(await r.json()).toEqual({ ok: true, removed: true })
    expect(subs().filter((s) => s.device === d.id)).toHaveLength(9)
    await b.request('/admin/devices/revoke', { method: 'POST', json: { id: d.id } })
    await until(() => !subs().some((s) => s.device === d.id), 'revoked subscriptions removed')
  })

  it('keeps every change when adds and removals run at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webpush-store-'))
    try {
      const storage = createBridgeStorage(dir)
      const store = await createSubscriptionStore(storage)
      const sub = (endpoint: string, created_at: number): WebPushSubscription => ({ device: 'd', endpoint, keys: { p256dh: 'p', auth: 'a' }, expirationTime: null, created_at })
      for (const [i, e] of ['A', 'B', 'C'].entries()) await store.add(sub(e, i), 10)
      // What two 410s in one fan-out and two browsers subscribing at that moment do.
      const results = await Promise.all([store.removeEndpoint('A'), store.removeEndpoint('B'), store.add(sub('D', 3), 10), store.add(sub('E', 4), 10), store.removeEndpoint('A')])
      expect(results).toEqual([true, true, 0, 0, false])
      expect(store.list().map((s) => s.endpoint)).toEqual(['C', 'D', 'E'])
      expect((await createSubscriptionStore(storage)).list().map((s) => s.endpoint)).toEqual(['C', 'D', 'E'])
      // The per-device cap counts the subscriptions added just before, not a stale list.
      expect(await Promise.all(['F', 'G', 'H'].map((e, i) => store.add(sub(e, 5 + i), 4)))).toEqual([0, 1, 1])
      expect(store.list().map((s) => s.endpoint)).toEqual(['E', 'F', 'G', 'H'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('web push delivery', () => {
  it('delivers an encrypted alert that decrypts to the payload, signed with the VAPID key, then the dismissal', async () => {
    const d = await b.pair('browser')
    const keys = await subscribe(d.bearer, '/push/alert')
    const { public_key } = (await (await b.request('/webpush/key', { token: d.bearer })).json()) as { public_key: string }
    const sid = b.bridge.ctx.config.server_id
    const name = b.bridge.ctx.config.server_name
    const before = svc.received.length

    status('w1:p1', 'working')
    status('w1:p1', 'blocked')
    const req = await svc.waitFor((r) => r.path === '/push/alert')
    expect(svc.received.indexOf(req)).toBeGreaterThanOrEqual(before)
    expect(req.method).toBe('POST')
    expect(req.headers['content-encoding']).toBe('aes128gcm')
    expect(req.headers.ttl).toBe('3600')
    expect(req.headers.urgency).toBe('high')
    expect(req.headers.topic).toBe(topicOf(`${sid}/w1:p1`))
    expect(req.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/)
    const vapid = checkVapid(req.headers.authorization)
    expect(vapid.k).toBe(public_key)
    expect(vapid.header).toEqual({ typ: 'JWT', alg: 'ES256' })
    expect(vapid.claims.aud).toBe(svc.url)
    expect(vapid.claims.sub).toBe('mailto:ops@example.com')
    expect(vapid.claims.exp).toBeGreaterThan(Date.now() / 1000)
    expect(JSON.parse(decrypt(req.body, keys))).toEqual({
      type: 'alert',
      tag: `${sid}/w1:p1`,
      title: `${name} · w1:p1`,
      body: 'Needs you',
      status: 'blocked',
      pane: 'w1:p1',
      agent: '',
      server_id: sid,
      url: `/#/open/${sid}/w1%3Ap1`,
    })
    const sent = await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === 'w1:p1'), 'push_sent')
    expect(sent.payload).toMatchObject({ sent: 1, total: 1 })

    status('w1:p1', 'working')
    const dis = await svc.waitFor((r) => r.path === '/push/alert' && r !== req)
    expect(dis.headers.topic).toBe(topicOf(`${sid}/w1:p1`))
    expect(JSON.parse(decrypt(dis.body, keys))).toEqual({ type: 'dismiss', tag: `${sid}/w1:p1`, server_id: sid, pane: 'w1:p1' })
    await until(() => events.find((e) => e.type === 'notification_cleared' && e.payload.pane === 'w1:p1'), 'cleared')

    // A done alert lives 10 minutes at normal urgency.
    status('w1:p1', 'done')
    const done = await svc.waitFor((r) => r.path === '/push/alert' && r !== req && r !== dis)
    expect([done.headers.ttl, done.headers.urgency]).toEqual(['600', 'normal'])
    expect(JSON.parse(decrypt(done.body, keys))).toMatchObject({ type: 'alert', status: 'done', body: 'Finished' })
    await b.request('/webpush/unsubscribe', { method: 'POST', token: d.bearer, json: { endpoint: keys.endpoint } })
  })

  it('removes subscriptions the push service answers 404 or 410 for, and retries a 503', async () => {
    const d = await b.pair('gone browser')
    const gone = await subscribe(d.bearer, '/push/gone')
    const missing = await subscribe(d.bearer, '/push/missing')
    const flaky = await subscribe(d.bearer, '/push/flaky')
    svc.answer('/push/gone', 410)
    svc.answer('/push/missing', 404)
    svc.answer('/push/flaky', 503, 201)
    status('w2:p1', 'blocked')
    const sent = await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === 'w2:p1'), 'push_sent')
    expect(sent.payload).toMatchObject({ sent: 1, total: 3 })
    expect(svc.received.filter((r) => r.path === '/push/gone')).toHaveLength(1)
    expect(svc.received.filter((r) => r.path === '/push/missing')).toHaveLength(1)
    expect(svc.received.filter((r) => r.path === '/push/flaky')).toHaveLength(2)
    expect(subs().map((s) => s.endpoint)).not.toContain(gone.endpoint)
    expect(subs().map((s) => s.endpoint)).not.toContain(missing.endpoint)
    expect(subs().map((s) => s.endpoint)).toContain(flaky.endpoint)
    expect(lines).toContain(`info web push: the subscription of ${label(d.id, missing.endpoint)} has expired (404); removed`)
    await b.request('/admin/devices/revoke', { method: 'POST', json: { id: d.id } })
    await until(() => !subs().some((s) => s.endpoint === flaky.endpoint), 'revoked')
  })

  it('retries a 429 after the Retry-After the push service asks for, capped, three tries at most', async () => {
    const d = await b.pair('busy service')
    await subscribe(d.bearer, '/push/later')
    await subscribe(d.bearer, '/push/much-later')
    await subscribe(d.bearer, '/push/busy')
    svc.answer('/push/later', { status: 429, headers: { 'retry-after': '1' } }, 201)
    svc.answer('/push/much-later', { status: 429, headers: { 'retry-after': '3600' } }, 201)
    svc.answer('/push/busy', 429)
    status('w2:p2', 'blocked')
    const sent = await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === 'w2:p2'), 'push_sent')
    expect(sent.payload).toMatchObject({ sent: 2, total: 3 })
    const gap = (path: string) => {
      const got = svc.received.filter((r) => r.path === path)
      expect(got, path).toHaveLength(2)
      return got[1].at - got[0].at
    }
    // The backoff alone would be 20 ms; the service's 1 s is honoured, its hour cut to the cap.
    expect(gap('/push/later')).toBeGreaterThanOrEqual(950)
    expect(gap('/push/much-later')).toBeGreaterThanOrEqual(1450)
    expect(gap('/push/much-later')).toBeLessThan(10_000)
    expect(svc.received.filter((r) => r.path === '/push/busy')).toHaveLength(3)
    await b.request('/admin/devices/revoke', { method: 'POST', json: { id: d.id } })
  })

  it('logs failures per subscription, never its endpoint: one failing browser of a device does not flip-flop with a working one', async () => {
    const d = await b.pair('two profiles')
    const bad = await subscribe(d.bearer, '/push/profile-bad')
    await subscribe(d.bearer, '/push/profile-good')
    svc.answer('/push/profile-bad', 500)
    const from = lines.length
    for (const pane of ['w2:p3', 'w2:p4']) {
      status(pane, 'blocked')
      await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === pane), `push_sent ${pane}`)
    }
    svc.answer('/push/profile-bad', 201)
    status('w2:p5', 'blocked')
    await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === 'w2:p5'), 'push_sent w2:p5')
    const mine = lines.slice(from).filter((l) => l.includes('web push') || l.includes('webpush:'))
    expect(mine).toEqual([
      `warn webpush: ${label(d.id, bad.endpoint)}: HTTP 500: status 500 (further failures of this target are not logged until it works again)`,
      `info webpush: ${label(d.id, bad.endpoint)} works again`,
    ])
    expect(lines.join('\n')).not.toContain('/push/profile')
    await b.request('/admin/devices/revoke', { method: 'POST', json: { id: d.id } })
  })

  it('skips a device that muted the pane until it unmutes', async () => {
    const quiet = await b.pair('quiet')
    const loud = await b.pair('loud')
    await subscribe(quiet.bearer, '/push/quiet')
    await subscribe(loud.bearer, '/push/loud')
    const m = await b.request('/notify/mute', { method: 'POST', token: quiet.bearer, json: { pane: 'w3:p1' } })
    expect(m.status).toBe(200)
    expect(await m.json()).toEqual({ ok: true, pane: 'w3:p1', until: null })
    expect(await (await b.request('/notify/mutes', { token: quiet.bearer })).json()).toEqual({ mutes: { 'w3:p1': 0 } })
    const past = await b.request('/notify/mute', { method: 'POST', token: quiet.bearer, json: { pane: 'w3:p1', until: 1000 } })
    expect([past.status, await past.json()]).toEqual([400, { error: 'until: that time has passed' }])
    const bad = await b.request('/notify/mute', { method: 'POST', token: quiet.bearer, json: { until: 'soon' } })
    expect(bad.status).toBe(400)

    status('w3:p1', 'blocked')
    await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === 'w3:p1'), 'push_sent')
    await b.bridge.state(notifyWebpush)!.idle()
    expect(svc.received.filter((r) => r.path === '/push/loud')).toHaveLength(1)
    expect(svc.received.filter((r) => r.path === '/push/quiet')).toHaveLength(0)

    const u = await b.request('/notify/unmute', { method: 'POST', token: quiet.bearer, json: { pane: 'w3:p1' } })
    expect(await u.json()).toEqual({ ok: true, pane: 'w3:p1', was_muted: true })
    status('w3:p1', 'done')
    await svc.waitFor((r) => r.path === '/push/quiet')
    for (const d of [quiet, loud]) await b.request('/admin/devices/revoke', { method: 'POST', json: { id: d.id } })
  })
})
