import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { LogObject } from 'consola'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import type { BusEvent } from '../../core/bus.ts'
import type { AlertEvent } from '../../lib/notify/events.ts'
import { hasControl } from '../../lib/strings.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyFcm from '../../plugins/notify-fcm/index.ts'
import { startFakeFcm, type FakeFcm } from './fake-fcm.ts'

/**
 * The push plugin inside the real bridge, driven through the bus the way the ingester drives
 * it, delivering through the real firebase-admin SDK to a local fake FCM. No herdr runs here,
 * so alerts carry the pane id as their title and no seq; tests/push/watcher.test.ts covers
 * alerts for real agents in the simulator.
 */

let fcm: FakeFcm
beforeAll(async () => {
  fcm = await startFakeFcm()
})
afterAll(() => fcm?.close())

const bridges: TestBridge[] = []
afterEach(async () => {
  while (bridges.length) await bridges.pop()!.close()
})

/** No Google credentials anywhere unless a test writes one. */
const isolatedEnv = (home: string) => ({ GOOGLE_APPLICATION_CREDENTIALS: '', GCE_METADATA_HOST: '127.0.0.1:1', CLOUDSDK_CONFIG: join(home, 'gcloud') })

async function start(opts: { credentials: boolean; channels?: { blocked: string; done: string } }) {
  const home = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'push-home-'))
  const dataDir = join(home, '.herdr-bridge')
  mkdirSync(dataDir, { recursive: true })
  if (opts.credentials) writeFileSync(join(dataDir, 'serviceAccount.json'), JSON.stringify(fcm.serviceAccount))
  const b = await startBridge({
    home,
    env: isolatedEnv(home),
    user: { plugins: [pairing, push, [notifyFcm, { httpAgent: fcm.agent, backoffMs: [20, 40], ...(opts.channels ? { android_channels: opts.channels } : {}) }]] },
  })
  // home is the bridge's own temp dir; close() of a bridge given a home leaves it, so remove it
  // after: closers run last-in first-out, so this one goes in before the bridge's.
  bridges.push({ close: async () => (await import('node:fs')).rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }) } as TestBridge)
  bridges.push(b)
  const events: BusEvent[] = []
  b.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
  return { b, events }
}

async function device(b: TestBridge, name: string, token: string) {
  const d = await b.pair(name)
  const r = await b.request('/register-token', { method: 'POST', token: d.bearer, json: { token } })
  expect(r.status).toBe(200)
  return d
}

const waitForEvent = (events: BusEvent[], pred: (e: BusEvent) => boolean): Promise<BusEvent> =>
  until(
    () => events.find(pred),
    () => `a matching bus event; saw ${events.map((x) => x.type).join(', ')}`,
  )

const status = (b: TestBridge, pane: string, agent_status: string) =>
  b.bridge.ctx.bus.publish('multiplexer', 'pane_agent_status_changed', { pane_id: pane, workspace_id: pane.split(':')[0], agent: 'claude', agent_status, session: 'default' })

describe('push through the bus', () => {
  it('alerts each device with two messages, then dismisses when the pane leaves the state', async () => {
    const { b, events } = await start({ credentials: true })
    await device(b, 'phone', 'tok-a')
    await device(b, 'tablet', 'tok-b')
    const sid = b.bridge.ctx.config.server_id
    const name = b.bridge.ctx.config.server_name
    const base = fcm.requests.length

    status(b, 'w1:p1', 'working')
    status(b, 'w1:p1', 'blocked')
    const sent = await waitForEvent(events, (e) => e.type === 'push_sent')
    expect(sent.source).toBe('bridge')
    expect(sent.payload).toEqual({ agent: 'w1:p1', status: 'blocked', title: `${name} · w1:p1`, seq: 0, sent: 2, total: 2, server_id: sid })
    const alerts = fcm.requests.slice(base)
    expect(alerts).toHaveLength(4)
    for (const tok of ['tok-a', 'tok-b']) {
      const mine = alerts.filter((r) => r.body.message.token === tok).map((r) => r.body.message)
      expect(mine.map((m) => m.data.render)).toEqual(['os', 'app'])
      const data = { type: 'alert', agent: 'w1:p1', status: 'blocked', server_id: sid, server_name: name, agent_title: '', title: `${name} · w1:p1`, body: 'Needs you' }
      // The wire format is FCM v1's snake_case JSON, as firebase-admin writes it.
      expect(mine[0]).toEqual({
        token: tok,
        data: { ...data, render: 'os' },
        notification: { title: `${name} · w1:p1`, body: 'Needs you' },
        android: {
          priority: 'high',
          collapse_key: `${sid}/w1:p1`,
          notification: { tag: `${sid}/w1:p1`, channel_id: 'gothalo_blocked', notification_priority: 'PRIORITY_HIGH', default_sound: true },
        },
        webpush: { headers: { Urgency: 'high', TTL: '3600' } },
      })
      expect(mine[1]).toEqual({
        token: tok,
        data: { ...data, render: 'app' },
        android: { priority: 'high', collapse_key: `${sid}/w1:p1` },
        webpush: { headers: { Urgency: 'high', TTL: '3600' } },
      })
    }

    status(b, 'w1:p1', 'working')
    await waitForEvent(events, (e) => e.type === 'notification_cleared')
    const dismissals = fcm.requests.slice(base + 4).map((r) => r.body.message)
    expect(dismissals.map((m) => m.token).sort()).toEqual(['tok-a', 'tok-b'])
    for (const m of dismissals)
      expect(m).toEqual({
        token: m.token,
        data: { type: 'dismiss', agent: 'w1:p1', server_id: sid },
        android: { priority: 'high', collapse_key: `${sid}/w1:p1` },
        webpush: { headers: { Urgency: 'high', TTL: '3600' } },
      })
    // Nothing else went out.
    await b.bridge.state(push)!.idle()
    expect(fcm.requests.length).toBe(base + 6)
  })

  it('dismisses a notified pane when it closes or exits, and uses configured channels', async () => {
    const { b, events } = await start({ credentials: true, channels: { blocked: 'my_blocked', done: 'my_done' } })
    await device(b, 'phone', 'tok-c')
    const sid = b.bridge.ctx.config.server_id
    const base = fcm.requests.length
    status(b, 'work/w2:p1', 'done')
    await waitForEvent(events, (e) => e.type === 'push_sent')
    expect(fcm.requests.slice(base).map((r) => r.body.message.android.notification?.channel_id)).toEqual(['my_done', undefined])
    expect(fcm.requests[base].body.message.data.agent).toBe('work/w2:p1')
    b.bridge.ctx.bus.publish('multiplexer', 'pane_closed', { pane_id: 'work/w2:p1', workspace_id: 'work/w2', session: 'work' })
    await waitForEvent(events, (e) => e.type === 'notification_cleared')
    expect(fcm.requests.at(-1)!.body.message.data).toEqual({ type: 'dismiss', agent: 'work/w2:p1', server_id: sid })

    // pane_exited with a bare id and a session label is the same pane.
    status(b, 'work/w2:p3', 'blocked')
    await waitForEvent(events, (e) => e.type === 'push_sent' && e.payload.agent === 'work/w2:p3')
    b.bridge.ctx.bus.publish('multiplexer', 'pane_exited', { pane_id: 'w2:p3', workspace_id: 'w2', session: 'work' })
    await waitForEvent(events, (e) => e.type === 'notification_cleared' && e.payload.pane === 'work/w2:p3')
    expect(fcm.requests.at(-1)!.body.message.data).toEqual({ type: 'dismiss', agent: 'work/w2:p3', server_id: sid })
  })

  it('clears a token FCM reports as unregistered and keeps the others', async () => {
    const { b, events } = await start({ credentials: true })
    fcm.behave.set('tok-gone', 'unregistered')
    fcm.behave.set('tok-flaky2', { failFirst: 1, status: 500 })
    const gone = await device(b, 'old-phone', 'tok-gone')
    await device(b, 'phone', 'tok-flaky2')
    status(b, 'w1:p9', 'blocked')
    const sent = await waitForEvent(events, (e) => e.type === 'push_sent')
    expect(sent.payload).toMatchObject({ sent: 1, total: 2 })
    const list = (await (await b.request('/admin/devices')).json()) as { devices: { id: string; has_push_token: boolean }[] }
    expect(list.devices.find((d) => d.id === gone.id)!.has_push_token).toBe(false)
    expect(list.devices.filter((d) => d.has_push_token)).toHaveLength(1)
    // The dead token gets no second (app) message; the flaky one was retried and got both.
    const mine = fcm.requests.filter((r) => r.body.message.token === 'tok-gone')
    expect(mine).toHaveLength(1)
    expect(fcm.requests.filter((r) => r.body.message.token === 'tok-flaky2').map((r) => r.body.message.data.render)).toEqual(['os', 'os', 'app'])
  })

  it('skips a device that muted the pane, for that pane only', async () => {
    const { b, events } = await start({ credentials: true })
    const quiet = await device(b, 'quiet', 'tok-quiet')
    await device(b, 'loud', 'tok-loud')
    expect((await b.request('/notify/mute', { method: 'POST', token: quiet.bearer, json: { pane: 'w5:p1', until: new Date(Date.now() + 3_600_000).toISOString() } })).status).toBe(
      200,
    )
    const base = fcm.requests.length
    status(b, 'w5:p1', 'blocked')
    const sent = await waitForEvent(events, (e) => e.type === 'push_sent' && e.payload.agent === 'w5:p1')
    expect(sent.payload).toMatchObject({ sent: 1, total: 1 })
    status(b, 'w5:p2', 'blocked')
    await waitForEvent(events, (e) => e.type === 'push_sent' && e.payload.agent === 'w5:p2')
    await b.bridge.state(push)!.idle()
    const got = fcm.requests.slice(base).map((r) => [r.body.message.token, r.body.message.data.agent])
    expect(got.filter(([t]) => t === 'tok-quiet').map(([, a]) => a)).toEqual(['w5:p2', 'w5:p2'])
    expect(got.filter(([t]) => t === 'tok-loud').map(([, a]) => a)).toEqual(['w5:p1', 'w5:p1', 'w5:p2', 'w5:p2'])
  })

  it('POST /testpush sends a sample alert to every device', async () => {
    const { b } = await start({ credentials: true })
    const d = await device(b, 'phone', 'tok-test')
    const base = fcm.requests.length
    expect((await b.request('/testpush', { method: 'POST', token: null })).status).toBe(401)
    const r = await b.request('/testpush', { method: 'POST', token: d.bearer })
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toContain('application/json')
    expect(await r.json()).toEqual({ ok: true, sent: true, delivered: 1, devices: 1, push_enabled: true })
    const msgs = fcm.requests.slice(base).map((m) => m.body.message)
    expect(msgs.map((m) => [m.token, m.data.render, m.data.type])).toEqual([
      ['tok-test', 'os', 'alert'],
      ['tok-test', 'app', 'alert'],
    ])
    expect(msgs[0].notification).toEqual({ title: `${b.bridge.ctx.config.server_name} · Test notification`, body: 'Finished — push notifications work' })
  })

  /** A bridge without FCM credentials at info level, with every log line it writes. */
  async function startLogOnly() {
    // Info level for this bridge; plugin loggers are tagged children sharing the reporter list.
    const prev = process.env.BRIDGE_TEST_LOG
    process.env.BRIDGE_TEST_LOG = '3'
    const { b, events } = await start({ credentials: false }).finally(() => {
      if (prev === undefined) delete process.env.BRIDGE_TEST_LOG
      else process.env.BRIDGE_TEST_LOG = prev
    })
    const lines: string[] = []
    // Tagged children copy the reporter list but share the reporter objects: capture through it.
    const reporter = b.bridge.ctx.log.options.reporters[0] as { log: (o: LogObject, c: unknown) => void }
    const original = reporter.log
    reporter.log = (o: LogObject) => void lines.push(`[${o.tag}] ${o.args.join(' ')}`)
    bridges.push({ close: async () => void (reporter.log = original) } as TestBridge)
    return { b, events, lines }
  }

  it('without credentials the bridge runs and only logs notifications', async () => {
    const { b, events, lines } = await startLogOnly()
    const d = await device(b, 'phone', 'tok-x')
    const base = fcm.requests.length
    status(b, 'w1:p4', 'blocked')
    const sent = await waitForEvent(events, (e) => e.type === 'push_sent')
    expect(sent.payload).toMatchObject({ agent: 'w1:p4', status: 'blocked', sent: 0, total: 1 })
    const r = await b.request('/testpush', { method: 'POST', token: d.bearer })
    expect(await r.json()).toEqual({ ok: true, sent: true, delivered: 0, devices: 1, push_enabled: false })
    expect(fcm.requests.length).toBe(base)
    expect(lines).toContain(`[bridge:notify-fcm] push (log only): blocked w1:p4: ${b.bridge.ctx.config.server_name} · w1:p4 — Needs you [1 device(s)]`)

    expect((await b.request('/info')).status).toBe(200)
  })

  it('logs an alert whose title and body carry newlines and terminal escapes as one escaped line', async () => {
    const { b, lines } = await startLogOnly()
    await device(b, 'phone', 'tok-y')
    const id = 'forged-1'
    const sid = b.bridge.ctx.config.server_id
    // Handed to the channels directly, as alert composition does.
    const delivered = b.bridge.ctx.services.notifyChannels.alert({
      id,
      tag: `${sid}/w1:p6`,
      status: 'blocked',
      title: 'agent\n[bridge:pairing] paired device dev-x (attacker)',
      body: 'Needs you\u001b[2K\r[bridge] all is well',
      pane: 'w1:p6',
      agent: 'claude',
      agent_title: 'agent',
      server_id: sid,
      server_name: 'srv',
      url: '/#/open/w1:p6',
      muted: [],
      ts: Date.now(),
    } satisfies AlertEvent)
    expect(Object.keys(await delivered)).toContain('fcm')
    const logged = lines.filter((l) => l.includes('w1:p6'))
    expect(logged).toEqual([
      '[bridge:notify-fcm] push (log only): blocked w1:p6: agent\\n[bridge:pairing] paired device dev-x (attacker) — Needs you\\u001b[2K\\r[bridge] all is well [1 device(s)]',
    ])
    expect(lines.filter(hasControl)).toEqual([])
  })
})

describe('web push config', () => {
  it('serves firebase-web.json on both paths without auth, 404 when absent', async () => {
    const { b } = await start({ credentials: false })
    for (const path of ['/push-config', '/firebase-config']) {
      const r = await b.request(path, { token: null })
      expect(r.status).toBe(404)
      expect(await r.text()).toBe('web push is not configured on this bridge (no firebase-web.json in its data dir)')
    }
    const cfg = {
      apiKey: 'AIza',
      authDomain: 'p.firebaseapp.com',
      projectId: 'p',
      storageBucket: 'p.appspot.com',
      messagingSenderId: '42',
      appId: '1:42:web:abc',
      vapidKey: 'BPUBLIC',
    }
    writeFileSync(join(b.dataDir, 'firebase-web.json'), JSON.stringify(cfg))
    for (const path of ['/push-config', '/firebase-config']) {
      const r = await b.request(path, { token: null })
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
      expect(await r.json()).toEqual(cfg)
    }
    expect((await b.request('/push-config', { method: 'POST', token: null })).status).toBe(405)
  })
})
