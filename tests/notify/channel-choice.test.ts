import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import type { BusEvent } from '../../core/bus.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyWebpush from '../../plugins/notify-webpush/index.ts'
import notifyWebhook from '../../plugins/notify-webhook/index.ts'
import { startStandIn, type StandIn } from './stand-in.ts'
import { browserKeys } from './webpush-crypto.ts'
import { createChannelRegistry } from '../../core/notify/channels.ts'
import type { AlertEvent } from '../../lib/notify/events.ts'

/**
 * Which channels a device's alerts go out on (GET/POST /notify/channels): a device turns a
 * per-device channel (Web Push here) off for itself and its browsers get nothing on it, while
 * other devices and the bridge-wide channels (a webhook) carry on.
 */

let svc: StandIn
let b: TestBridge
const events: BusEvent[] = []

beforeAll(async () => {
  svc = await startStandIn()
  b = await startBridge({
    env: { BRIDGE_WEBPUSH_INSECURE: '1', BRIDGE_WEBHOOK_URL: `${svc.url}/hook`, BRIDGE_WEBHOOK_SECRET: '' },
    user: { plugins: [pairing, push, [notifyWebpush, { backoffMs: [] }], [notifyWebhook, { backoffMs: [] }]] },
  })
  b.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
})
afterAll(async () => {
  await b?.close()
  await svc?.close()
})

const status = (pane: string, agent_status: string) =>
  b.bridge.ctx.bus.publish('multiplexer', 'pane_agent_status_changed', { pane_id: pane, workspace_id: pane.split(':')[0], agent: 'claude', agent_status, session: 'default' })

async function subscribe(token: string, path: string): Promise<void> {
  const keys = browserKeys()
  const r = await b.request('/webpush/subscribe', { method: 'POST', token, json: { endpoint: `${svc.url}${path}`, keys: { p256dh: keys.p256dh, auth: keys.auth } } })
  expect(r.status).toBe(200)
}

/** Blocks the pane and waits until every channel answered for it. */
async function alertOn(pane: string): Promise<void> {
  status(pane, 'blocked')
  await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === pane), `push_sent ${pane}`)
  await b.bridge.state(notifyWebpush)!.idle()
  await b.bridge.state(notifyWebhook)!.idle()
}

/** Requests a path received: a webhook's by pane (its body is plain JSON), a subscription's all (encrypted). */
const got = (path: string, pane?: string) => svc.received.filter((r) => r.path === path && (!pane || JSON.parse(r.body.toString()).pane === pane)).length
const choose = (token: string, json: unknown) => b.request('/notify/channels', { method: 'POST', token, json })

describe('alert channels per device', () => {
  it('lists the running channels: per-device ones on by default, bridge-wide ones as configured', async () => {
    const d = await b.pair('lister')
    const r = await b.request('/notify/channels', { token: d.bearer })
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({
      channels: [
        { channel: 'webpush', per_device: true, configured: true, on: true },
        { channel: 'webhook', per_device: false, configured: true, on: true },
      ],
    })
    expect((await b.request('/notify/channels', { token: null })).status).toBe(401)
  })

  it('a device that turned Web Push off gets no alert on it; other devices and the webhook still do; turned on again, it does', async () => {
    const off = await b.pair('off')
    const on = await b.pair('on')
    await subscribe(off.bearer, '/push/off')
    await subscribe(on.bearer, '/push/on')

    const r = await choose(off.bearer, { channel: 'webpush', on: false })
    expect(r.status).toBe(200)
    expect((await r.json()).channels[0]).toEqual({ channel: 'webpush', per_device: true, configured: true, on: false })
    // Only this device's choice changed.
    expect((await (await b.request('/notify/channels', { token: on.bearer })).json()).channels[0].on).toBe(true)
    expect(JSON.parse(readFileSync(join(b.dataDir, 'plugins/push/notify-channels-off.json'), 'utf8'))).toEqual({ [off.id]: ['webpush'] })

    await alertOn('w7:p1')
    expect(got('/push/off')).toBe(0)
    expect(got('/push/on')).toBe(1)
    expect(got('/hook', 'w7:p1')).toBe(1)

    expect((await (await choose(off.bearer, { channel: 'webpush', on: true })).json()).channels[0].on).toBe(true)
    await alertOn('w7:p2')
    expect(got('/push/off')).toBe(1)
    expect(got('/push/on')).toBe(2)
    expect(got('/hook', 'w7:p2')).toBe(1)
  })

  it('refuses a bridge-wide or unknown channel and a bad body in one line; a viewer may choose its own', async () => {
    const d = await b.pair('chooser')
    const wide = await choose(d.bearer, { channel: 'webhook', on: false })
    expect([wide.status, await wide.json()]).toEqual([400, { error: "channel: webhook is bridge-wide: it is set in the bridge's config, not per device" }])
    const unknown = await choose(d.bearer, { channel: 'fcm', on: false })
    expect([unknown.status, await unknown.json()]).toEqual([400, { error: 'channel: no channel fcm runs on this bridge (it runs webpush, webhook)' }])
    const bad = await choose(d.bearer, { channel: 'webpush', on: 'no' })
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'on: want true or false' }])

    const { code } = await (await b.request('/admin/pairing', { method: 'POST', json: { role: 'viewer' } })).json()
    const viewer = await (await b.request('/pair', { method: 'POST', token: null, json: { code, device_name: 'watcher' } })).json()
    const v = await choose(viewer.bearer, { channel: 'webpush', on: false })
    expect(v.status).toBe(200)
    expect((await v.json()).channels[0].on).toBe(false)
  })

  it('forgets a revoked device’s choice', async () => {
    const d = await b.pair('leaving')
    await choose(d.bearer, { channel: 'webpush', on: false })
    expect(JSON.parse(readFileSync(join(b.dataDir, 'plugins/push/notify-channels-off.json'), 'utf8'))[d.id]).toEqual(['webpush'])
    await b.request('/admin/devices/revoke', { method: 'POST', json: { id: d.id } })
    await until(() => JSON.parse(readFileSync(join(b.dataDir, 'plugins/push/notify-channels-off.json'), 'utf8'))[d.id] === undefined, 'the choice forgotten')
  })
})

describe('the channel registry', () => {
  it('hands a per-device channel the devices that turned it off among those it skips, and a bridge-wide one none', async () => {
    const registry = createChannelRegistry()
    const got: Record<string, string[]> = {}
    const channel = (name: string, perDevice: boolean) => ({
      name,
      plugin: `notify-${name}`,
      perDevice,
      status: () => ({ configured: true, detail: 'test' }),
      alert: async (ev: AlertEvent) => ((got[name] = ev.muted), { sent: 1, total: 1, enabled: true }),
      dismiss: async () => ({ sent: 0, total: 0, enabled: true }),
    })
    registry.add(channel('mine', true))
    registry.add(channel('wide', false))
    const ev: AlertEvent = {
      id: 'x',
      tag: 's/w1:p1',
      status: 'blocked',
      title: 't',
      body: 'b',
      pane: 'w1:p1',
      agent: '',
      agent_title: '',
      server_id: 's',
      server_name: 'n',
      url: '',
      muted: ['muter'],
      ts: 0,
    }
    await registry.alert({ ...ev, off: { mine: ['d1', 'muter'], wide: ['d1'] } })
    expect(got).toEqual({ mine: ['muter', 'd1'], wide: ['muter'] })
    expect([registry.perDevice('mine'), registry.perDevice('wide'), registry.perDevice('none')]).toEqual([true, false, false])
  })
})
