import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSim, type Sim } from '../harness/sim.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import type { BusEvent } from '../../core/bus.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyFcm from '../../plugins/notify-fcm/index.ts'
import { startFakeFcm, type FakeFcm } from './fake-fcm.ts'
import { until as waitUntil } from '../harness/wait.ts'

/**
 * Push driven end to end: agent states change in the herdr simulator, the bridge's ingester
 * turns them into bus events, and the push plugin sends through the real firebase-admin SDK
 * to the local fake FCM.
 */

let fcm: FakeFcm
let sim: Sim
let bridge: TestBridge
let home: string
const events: BusEvent[] = []
let held: string
let fresh: string

const setStatus = (pane: string, state: string) => sim.request('sim.set_status', { pane_id: pane, state, agent: 'sim-agent' })

const until = <T>(what: string, fn: () => T | Promise<T>, timeoutMs = 45_000) =>
  waitUntil(fn, () => `${what}; bus saw ${events.map((e) => `${e.type}:${JSON.stringify(e.payload).slice(0, 80)}`).join(' | ')}`, timeoutMs)

beforeAll(async () => {
  fcm = await startFakeFcm()
  home = mkdtempSync(join(tmpdir(), 'push-watch-'))
  sim = await startSim({ home, testMode: true })
  // Two agent panes before the bridge starts: one already blocked, one working.
  held = (await sim.request('workspace.create', { cwd: home })).root_pane.pane_id
  fresh = (await sim.request('workspace.create', { cwd: home })).root_pane.pane_id
  await setStatus(held, 'blocked')
  await setStatus(fresh, 'working')
  // A terminal title for the alert's agent_title.
  await sim.request('pane.send_text', { pane_id: fresh, text: "printf '\\033]0;Fix login bug\\007'\r" })
  await until('title', async () => (await sim.request('pane.get', { pane_id: fresh })).pane.terminal_title_stripped === 'Fix login bug')

  const sa = join(home, 'sa.json')
  writeFileSync(sa, JSON.stringify(fcm.serviceAccount))
  bridge = await startBridge({
    home,
    env: { BRIDGE_SERVICE_ACCOUNT: sa, GOOGLE_APPLICATION_CREDENTIALS: '', GCE_METADATA_HOST: '127.0.0.1:1', CLOUDSDK_CONFIG: join(home, 'gcloud') },
    user: { plugins: [pairing, push, [notifyFcm, { httpAgent: fcm.agent }]] },
  })
  bridge.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
  await bridge.bridge.state(push)!.started
  // The ingester must be subscribed before the first transition: a change made while it still
  // connects is seeded as the starting state (no event), so no alert would ever follow.
  await bridge.bridge.ingest!.settled()
  const d = await bridge.pair('phone')
  expect((await bridge.request('/register-token', { method: 'POST', token: d.bearer, json: { token: 'phone-token' } })).status).toBe(200)
})

afterAll(async () => {
  await bridge?.close()
  await sim?.stop()
  await fcm?.close()
  rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
})

const messages = () => fcm.requests.map((r) => r.body.message)

// Generous per-test deadlines: each step waits for its condition, and a loaded machine is slow.
describe('push from real agent transitions', { timeout: 120_000 }, () => {
  it('an agent already blocked when the bridge starts alerts once, with its seq', async () => {
    const sent = (await until('start-up alert', () => events.find((e) => e.type === 'push_sent' && e.payload.agent === held)))!
    const agent = (await sim.request('agent.get', { target: held })).agent
    // Sent before the phone registered its token (beforeAll pairs it later): counted, delivered to none.
    expect(sent.payload).toMatchObject({ agent: held, status: 'blocked', seq: agent.state_change_seq })
    await bridge.bridge.state(push)!.idle()
    expect(events.filter((e) => e.type === 'push_sent' && e.payload.agent === held)).toHaveLength(1)
  })

  it('alerts on a transition with the agent seq and title', async () => {
    const before = fcm.requests.length
    await setStatus(fresh, 'blocked')
    const sent = (await until('push_sent', () => events.find((e) => e.type === 'push_sent' && e.payload.agent === fresh)))!
    const agent = (await sim.request('agent.get', { target: fresh })).agent
    const sid = bridge.bridge.ctx.config.server_id
    const name = bridge.bridge.ctx.config.server_name
    expect(sent.payload).toEqual({ agent: fresh, status: 'blocked', title: `${name} · Fix login bug`, seq: agent.state_change_seq, sent: 1, total: 1, server_id: sid })
    await fcm.waitForRequests(before + 2, 45_000)
    const [os, app] = messages().slice(before)
    expect(os.data).toEqual({
      type: 'alert',
      render: 'os',
      agent: fresh,
      status: 'blocked',
      state_change_seq: String(agent.state_change_seq),
      server_id: sid,
      server_name: name,
      agent_title: 'Fix login bug',
      title: `${name} · Fix login bug`,
      body: 'Needs you',
    })
    expect(app.data).toEqual({ ...os.data, render: 'app' })
    expect(os.android.notification!.tag).toBe(`${sid}/${fresh}`)
  })

  it('dismisses when the pane leaves the notified state', async () => {
    const before = fcm.requests.length
    await setStatus(fresh, 'working')
    await until('cleared', () => events.find((e) => e.type === 'notification_cleared' && e.payload.pane === fresh))
    expect(messages().slice(before)).toEqual([
      {
        token: 'phone-token',
        data: { type: 'dismiss', agent: fresh, server_id: bridge.bridge.ctx.config.server_id },
        android: { priority: 'high', collapse_key: `${bridge.bridge.ctx.config.server_id}/${fresh}` },
        webpush: { headers: { Urgency: 'high', TTL: '3600' } },
      },
    ])
  })

  it('the held pane is dismissed when it leaves, alerts again when it re-enters blocked, and a closed pane is dismissed', async () => {
    await setStatus(held, 'working')
    // Its start-up alert was shown, so leaving takes it back.
    await until('held cleared', () => events.find((e) => e.type === 'notification_cleared' && e.payload.pane === held))
    await setStatus(held, 'blocked')
    await until('held alert', () => events.filter((e) => e.type === 'push_sent' && e.payload.agent === held).length === 2)
    const before = fcm.requests.length
    await sim.request('pane.close', { pane_id: held })
    await until('cleared on close', () => events.filter((e) => e.type === 'notification_cleared' && e.payload.pane === held).length === 2)
    expect(
      messages()
        .slice(before)
        .map((m) => m.data),
    ).toEqual([{ type: 'dismiss', agent: held, server_id: bridge.bridge.ctx.config.server_id }])
  })
})
