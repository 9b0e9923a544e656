import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHmac } from 'node:crypto'
import { join } from 'node:path'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import type { BusEvent } from '../../core/bus.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyNtfy from '../../plugins/notify-ntfy/index.ts'
import notifyWebhook from '../../plugins/notify-webhook/index.ts'
import { startStandIn, type StandIn } from './stand-in.ts'
import { updateStoredConfig } from '../../core/config.ts'
import { notifyTest } from '../../cli/notify.ts'

/**
 * ntfy and webhooks configured from environment variables alone, against loopback stand-ins:
 * the headers ntfy reads, the HMAC over the exact body bytes, retries only where they help, and
 * a stalled channel that holds up nothing else.
 */

let hooks: StandIn
let ntfy: StandIn
let b: TestBridge
const events: BusEvent[] = []
const SECRET = 'shh-webhook-secret'

beforeAll(async () => {
  hooks = await startStandIn()
  ntfy = await startStandIn()
  b = await startBridge({
    env: {
      BRIDGE_NTFY_URL: `${ntfy.url}/herdr-alerts`,
      BRIDGE_NTFY_TOKEN: 'tk_ntfy',
      BRIDGE_WEBHOOK_URL: `${hooks.url}/a, ${hooks.url}/b`,
      BRIDGE_WEBHOOK_SECRET: SECRET,
      BRIDGE_PUBLIC_URL: 'https://bridge.example.net',
    },
    user: { plugins: [pairing, push, [notifyNtfy, { backoffMs: [20, 40] }], [notifyWebhook, { backoffMs: [20, 40] }]] },
  })
  b.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
})
afterAll(async () => {
  await b?.close()
  await hooks?.close()
  await ntfy?.close()
})

const status = (pane: string, agent_status: string) =>
  b.bridge.ctx.bus.publish('multiplexer', 'pane_agent_status_changed', { pane_id: pane, workspace_id: pane.split(':')[0], agent: 'claude', agent_status, session: 'default' })

const bodyOf = (r: { body: Buffer }) => JSON.parse(r.body.toString('utf8'))

describe('ntfy and webhooks from the environment', () => {
  it('posts the alert to the ntfy topic with Title, Priority, Tags, Click and the token', async () => {
    const sid = b.bridge.ctx.config.server_id
    const name = b.bridge.ctx.config.server_name
    status('w1:p1', 'blocked')
    const r = await ntfy.waitFor((x) => x.path === '/herdr-alerts')
    expect(r.method).toBe('POST')
    expect(r.body.toString('utf8')).toBe('Needs you')
    const title = `${name} · w1:p1`
    // Non-ASCII titles travel RFC 2047-encoded (ntfy decodes them); ASCII ones as they are.
    expect(r.headers.title).toBe(/^[\x20-\x7e]*$/.test(title) ? title : `=?UTF-8?B?${Buffer.from(title).toString('base64')}?=`)
    expect(r.headers.priority).toBe('high')
    expect(r.headers.tags).toBe('blocked')
    expect(r.headers.click).toBe(`https://bridge.example.net/#/open/${sid}/w1%3Ap1`)
    expect(r.headers.authorization).toBe('Bearer tk_ntfy')
    const sent = await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === 'w1:p1'), 'push_sent')
    // One ntfy topic and two webhooks.
    expect(sent.payload).toMatchObject({ sent: 3, total: 3 })
  })

  it('signs each webhook with HMAC-SHA256 over the exact body bytes; a dismissal is agent.cleared', async () => {
    const sid = b.bridge.ctx.config.server_id
    const hits = await Promise.all(['/a', '/b'].map((p) => hooks.waitFor((x) => x.path === p && bodyOf(x).pane === 'w1:p1')))
    for (const h of hits) {
      expect(h.headers['content-type']).toBe('application/json')
      expect(h.headers['x-bridge-event']).toBe('agent.blocked')
      expect(h.headers['x-bridge-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(h.body).digest('hex')}`)
      const body = bodyOf(h)
      expect(Object.keys(body)).toEqual(['event', 'tag', 'server_id', 'pane', 'agent', 'title', 'body', 'url', 'ts'])
      // The link that opens the agent in the web app.
      expect(body.url).toBe(`https://bridge.example.net/#/open/${sid}/w1%3Ap1`)
      expect(body).toMatchObject({ event: 'agent.blocked', tag: `${sid}/w1:p1`, server_id: sid, pane: 'w1:p1', body: 'Needs you' })
      expect(typeof body.ts).toBe('number')
    }
    status('w1:p1', 'working')
    const cleared = await hooks.waitFor((x) => x.path === '/a' && bodyOf(x).event === 'agent.cleared')
    expect(cleared.headers['x-bridge-event']).toBe('agent.cleared')
    expect(cleared.headers['x-bridge-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(cleared.body).digest('hex')}`)
    expect(bodyOf(cleared)).toMatchObject({ tag: `${sid}/w1:p1`, pane: 'w1:p1', title: `${b.bridge.ctx.config.server_name} · w1:p1` })
    // ntfy has no dismissal.
    await until(() => events.find((e) => e.type === 'notification_cleared' && e.payload.pane === 'w1:p1'), 'cleared')
    expect(ntfy.received.filter((x) => x.path === '/herdr-alerts')).toHaveLength(1)
  })

  it('retries a 5xx, never a 4xx', async () => {
    hooks.answer('/a', 502, 200)
    hooks.answer('/b', 400)
    const base = hooks.received.length
    status('w2:p1', 'done')
    const sent = await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === 'w2:p1'), 'push_sent')
    expect(sent.payload).toMatchObject({ sent: 2, total: 3 })
    const got = hooks.received.slice(base)
    expect(got.filter((x) => x.path === '/a').map((x) => bodyOf(x).event)).toEqual(['agent.done', 'agent.done'])
    expect(got.filter((x) => x.path === '/b')).toHaveLength(1)
    hooks.answer('/a', 200)
    hooks.answer('/b', 200)
  })

  it('a stalled channel delays no other: webhooks get the alert and its dismissal while ntfy hangs', async () => {
    ntfy.answer('/herdr-alerts', 'stall')
    const base = ntfy.received.length
    status('w3:p1', 'blocked')
    await ntfy.waitFor((x) => ntfy.received.indexOf(x) >= base)
    expect(ntfy.stalled).toBe(1)
    status('w3:p1', 'working')
    const cleared = await hooks.waitFor((x) => x.path === '/b' && bodyOf(x).pane === 'w3:p1' && bodyOf(x).event === 'agent.cleared')
    // ntfy's request is still open (its 5 s timeout has not fired) when the webhook's second event is in.
    expect(ntfy.stalled).toBe(1)
    expect(cleared).toBeTruthy()
    ntfy.answer('/herdr-alerts', 200)
  })

  it('POST /admin/notify/test says per channel what went out', async () => {
    expect((await b.request('/admin/notify/test', { method: 'POST', json: {}, token: (await b.pair('phone')).bearer })).status).toBe(401)
    const bad = await b.request('/admin/notify/test', { method: 'POST', json: { channel: 'sms' } })
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'channel: want one of fcm, webpush, ntfy, webhook' }])
    const r = await b.request('/admin/notify/test', { method: 'POST', json: {} })
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({
      channels: [
        { channel: 'fcm', sent: 0, total: 0, enabled: false, note: 'not loaded: add the notify-fcm plugin to bridge.config.ts' },
        { channel: 'webpush', sent: 0, total: 0, enabled: false, note: 'not loaded: add the notify-webpush plugin to bridge.config.ts' },
        { channel: 'ntfy', sent: 1, total: 1, enabled: true },
        { channel: 'webhook', sent: 2, total: 2, enabled: true },
      ],
    })
    const one = await b.request('/admin/notify/test', { method: 'POST', json: { channel: 'webhook' } })
    expect(await one.json()).toEqual({ channels: [{ channel: 'webhook', sent: 2, total: 2, enabled: true }] })
  })

  it('`bridge notify test` prints one line per channel through the daemon', async () => {
    // The CLI finds the daemon through config.json, as it does on a host.
    updateStoredConfig(join(b.dataDir, 'config.json'), (f) => void (f.transport = { addr: new URL(b.url).host }))
    const lines: string[] = []
    await notifyTest({ dir: b.dataDir, out: (l) => lines.push(l) })
    expect(lines).toEqual([
      'fcm      not sent: not loaded: add the notify-fcm plugin to bridge.config.ts',
      'webpush  not sent: not loaded: add the notify-webpush plugin to bridge.config.ts',
      'ntfy     sent to 1 target',
      'webhook  sent to 2 targets',
    ])
    lines.length = 0
    await expect(notifyTest({ dir: b.dataDir, channel: 'fcm', out: (l) => lines.push(l) })).rejects.toThrow('no channel delivered the test alert')
    expect(lines).toEqual(['fcm      not sent: not loaded: add the notify-fcm plugin to bridge.config.ts'])
    await expect(notifyTest({ dir: b.dataDir, channel: 'sms' })).rejects.toThrow('unknown channel "sms": want one of fcm, webpush, ntfy, webhook')
  })

  it('logs a failing webhook once, not once per alert', async () => {
    const lines: string[] = []
    // Tagged loggers share the reporter objects: capture through it.
    const reporter = b.bridge.ctx.log.options.reporters[0]
    const original = reporter.log
    reporter.log = (o) => void lines.push(`[${o.tag}] ${o.args.join(' ')}`)
    try {
      hooks.answer('/b', 404)
      for (const pane of ['w4:p1', 'w4:p2', 'w4:p3']) {
        status(pane, 'blocked')
        await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === pane), `push_sent ${pane}`)
      }
    } finally {
      reporter.log = original
      hooks.answer('/b', 200)
    }
    expect(lines.filter((l) => l.includes('webhook'))).toEqual([
      `[bridge:notify-webhook] webhook: #2 ${hooks.url}/…: HTTP 404: status 404 (further failures of this target are not logged until it works again)`,
    ])
    // The secret-bearing path of a webhook URL never reaches the log.
    expect(lines.join('\n')).not.toContain('/b')
  })
})

describe('an unsigned webhook and ntfy without a public URL or token', () => {
  let plain: TestBridge
  const plainEvents: BusEvent[] = []
  const webhookTest = async () => {
    const r = await plain.request('/admin/notify/test', { method: 'POST', json: { channel: 'webhook' } })
    expect(r.status).toBe(200)
    return ((await r.json()) as { channels: unknown[] }).channels
  }
  const hits = (path: string, from: number) => hooks.received.slice(from).filter((x) => x.path === path)

  beforeAll(async () => {
    plain = await startBridge({
      env: { BRIDGE_NTFY_URL: `${ntfy.url}/plain`, BRIDGE_NTFY_TOKEN: '', BRIDGE_WEBHOOK_URL: `${hooks.url}/c`, BRIDGE_WEBHOOK_SECRET: '', BRIDGE_PUBLIC_URL: '' },
      user: { plugins: [pairing, push, [notifyNtfy, { backoffMs: [20, 40] }], [notifyWebhook, { backoffMs: [20, 40], timeoutMs: 300 }]] },
    })
    plain.bridge.ctx.bus.subscribe({ deliver: (e) => void plainEvents.push(e) })
  })
  afterAll(async () => {
    await plain?.close()
  })

  it('ntfy gets no Click (no public URL) and no Authorization; the webhook carries no signature', async () => {
    plain.bridge.ctx.bus.publish('multiplexer', 'pane_agent_status_changed', { pane_id: 'w9:p1', workspace_id: 'w9', agent: 'claude', agent_status: 'blocked', session: 'default' })
    const r = await ntfy.waitFor((x) => x.path === '/plain')
    expect([r.headers.priority, r.headers.tags, r.body.toString('utf8')]).toEqual(['high', 'blocked', 'Needs you'])
    expect(r.headers).not.toHaveProperty('click')
    expect(r.headers).not.toHaveProperty('authorization')
    const h = await hooks.waitFor((x) => x.path === '/c')
    expect(h.headers['x-bridge-event']).toBe('agent.blocked')
    expect(h.headers).not.toHaveProperty('x-bridge-signature')
    const sent = await until(() => plainEvents.find((e) => e.type === 'push_sent' && e.payload.agent === 'w9:p1'), 'push_sent')
    expect(sent.payload).toMatchObject({ sent: 2, total: 2 })
  })

  it('retries a webhook whose connection drops unanswered', async () => {
    hooks.answer('/c', 'reset', 200)
    const from = hooks.received.length
    expect(await webhookTest()).toEqual([{ channel: 'webhook', sent: 1, total: 1, enabled: true }])
    expect(hits('/c', from)).toHaveLength(2)
  })

  it('gives a silent receiver the per-try timeout, three tries, then reports it', async () => {
    hooks.answer('/c', 'stall')
    const from = hooks.received.length
    expect(await webhookTest()).toEqual([{ channel: 'webhook', sent: 0, total: 1, enabled: true, note: 'no answer within 0.3 s' }])
    const got = hits('/c', from)
    expect(got).toHaveLength(3)
    // Each next try comes only once the previous one timed out (300 ms) and the backoff passed.
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(300)
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(300)
    await until(() => hooks.stalled === 0, 'timed-out requests closed')
  })

  it('stops after three tries of a failing receiver', async () => {
    hooks.answer('/c', 'reset')
    let from = hooks.received.length
    expect(await webhookTest()).toEqual([{ channel: 'webhook', sent: 0, total: 1, enabled: true, note: 'UND_ERR_SOCKET' }])
    expect(hits('/c', from)).toHaveLength(3)
    hooks.answer('/c', 503)
    from = hooks.received.length
    expect(await webhookTest()).toEqual([{ channel: 'webhook', sent: 0, total: 1, enabled: true, note: 'HTTP 503: status 503' }])
    expect(hits('/c', from)).toHaveLength(3)
    hooks.answer('/c', 200)
  })
})
