import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSim, type Sim } from '../harness/sim.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import type { BusEvent } from '../../core/bus.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyWebhook from '../../plugins/notify-webhook/index.ts'
import { startStandIn, type StandIn } from '../notify/stand-in.ts'

/**
 * Alerts that survive restarts and do not spam, against the herdr simulator and a webhook
 * receiver: an agent blocked across bridge restarts alerts once and only once per state; the
 * settle delay drops a state that ends at once; the cooldown holds a flapping agent's alerts.
 */

let sim: Sim
let hooks: StandIn
let home: string
let dataDir: string
const PUBLIC = 'https://vm.tail1234.ts.net'

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'push-restart-'))
  dataDir = join(home, 'data')
  sim = await startSim({ home, testMode: true })
  hooks = await startStandIn()
})
afterAll(async () => {
  await sim?.stop()
  await hooks?.close()
  rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
})

const setStatus = (pane: string, state: string) => sim.request('sim.set_status', { pane_id: pane, state, agent: 'sim-agent' })
const seqOf = async (pane: string): Promise<number> => (await sim.request('agent.get', { target: pane })).agent.state_change_seq
const posts = (path: string, event?: string) =>
  hooks.received.filter((r) => r.path === path && (!event || r.headers['x-bridge-event'] === event)).map((r) => JSON.parse(r.body.toString('utf8')))

/** A bridge on the shared data dir whose alerts post to `<receiver>/<path>`; resolved once its start-up listing was handled. */
async function bridgeOn(path: string, env: NodeJS.ProcessEnv = {}): Promise<{ b: TestBridge; events: BusEvent[] }> {
  const b = await startBridge({
    home,
    dataDir,
    env: { BRIDGE_WEBHOOK_URL: `${hooks.url}${path}`, BRIDGE_WEBHOOK_SECRET: '', BRIDGE_PUBLIC_URL: PUBLIC, ...env },
    user: { plugins: [pairing, push, [notifyWebhook, { backoffMs: [20, 40] }]] },
  })
  const events: BusEvent[] = []
  b.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
  await b.bridge.state(push)!.started
  await b.bridge.ingest!.settled()
  await b.bridge.state(push)!.idle()
  return { b, events }
}

describe('alerts across restarts', { timeout: 120_000 }, () => {
  it('an agent blocked across two restarts alerts once; a new blocked state while down alerts once more; moving on while down dismisses', async () => {
    const pane = (await sim.request('workspace.create', { cwd: home })).root_pane.pane_id
    await setStatus(pane, 'blocked')
    const first = await seqOf(pane)

    // Start: the agent was blocked before the bridge ran, and nothing was alerted yet.
    let { b } = await bridgeOn('/r')
    expect(posts('/r', 'agent.blocked').map((p) => p.pane)).toEqual([pane])
    // The alert opens the agent in the web app.
    expect(posts('/r', 'agent.blocked')[0].url).toBe(`${PUBLIC}/#/open/${b.bridge.ctx.config.server_id}/${encodeURIComponent(pane)}`)
    await b.close()

    // Restart with the same state: no second alert.
    ;({ b } = await bridgeOn('/r'))
    expect(await seqOf(pane)).toBe(first)
    expect(posts('/r', 'agent.blocked')).toHaveLength(1)
    await b.close()

    // While the bridge is down the agent works, then blocks again: a new state, one new alert.
    await setStatus(pane, 'working')
    await setStatus(pane, 'blocked')
    expect(await seqOf(pane)).toBeGreaterThan(first)
    ;({ b } = await bridgeOn('/r'))
    expect(posts('/r', 'agent.blocked')).toHaveLength(2)
    await b.close()

    // And again unchanged: still two.
    ;({ b } = await bridgeOn('/r'))
    expect(posts('/r', 'agent.blocked')).toHaveLength(2)
    await b.close()

    // Down while the agent moves on: the next start takes the shown alert back, and alerts nothing.
    await setStatus(pane, 'working')
    ;({ b } = await bridgeOn('/r'))
    expect(posts('/r', 'agent.cleared').map((p) => p.pane)).toEqual([pane])
    expect(posts('/r', 'agent.blocked')).toHaveLength(2)
    await b.close()
  })

  it('cut off from herdr while an agent blocks: the reconnect alerts it once', async () => {
    const pane = (await sim.request('workspace.create', { cwd: home })).root_pane.pane_id
    await setStatus(pane, 'working')
    const { b, events } = await bridgeOn('/h')
    expect(posts('/h')).toEqual([])
    await sim.stopSession('default')
    await until(() => events.find((e) => e.type === 'multiplexer_disconnected'), 'disconnect', 45_000)
    // The agent blocks while no client can see it happen: no event will ever say so.
    await sim.direct('sim.set_status', { pane_id: pane, state: 'blocked', agent: 'sim-agent' })
    await sim.startSession('default')
    await until(() => posts('/h', 'agent.blocked').length === 1, 'the alert after the reconnect', 45_000)
    await b.bridge.state(push)!.idle()
    expect(posts('/h', 'agent.blocked').map((p) => p.pane)).toEqual([pane])
    // Seen by listing on the reconnect, not by a status event.
    expect(events.some((e) => e.type === 'pane_agent_status_changed' && e.payload.pane_id === pane && e.payload.agent_status === 'blocked')).toBe(false)
    await b.close()
  })
})

describe('pacing', { timeout: 120_000 }, () => {
  /** Sets a status and waits until the bridge has seen it on the bus. */
  const flip = async (events: BusEvent[], pane: string, state: string) => {
    const n = events.filter((e) => e.type === 'pane_agent_status_changed' && e.payload.pane_id === pane && e.payload.agent_status === state).length
    await setStatus(pane, state)
    await until(() => events.filter((e) => e.type === 'pane_agent_status_changed' && e.payload.pane_id === pane && e.payload.agent_status === state).length > n, `${pane} ${state}`)
  }

  it('a state that ends within the settle delay never alerts; one that holds alerts once it has', async () => {
    const pane = (await sim.request('workspace.create', { cwd: home })).root_pane.pane_id
    await setStatus(pane, 'working')
    const { b, events } = await bridgeOn('/s', { BRIDGE_ALERT_SETTLE_MS: '1500', BRIDGE_ALERT_COOLDOWN_MS: '0' })
    await flip(events, pane, 'blocked')
    await flip(events, pane, 'working')
    await b.bridge.state(push)!.idle()
    expect(posts('/s')).toEqual([])
    await flip(events, pane, 'blocked')
    await b.bridge.state(push)!.idle()
    expect(posts('/s', 'agent.blocked').map((p) => p.pane)).toEqual([pane])
    // Nothing was shown for the dropped state, so nothing was taken back either.
    expect(posts('/s', 'agent.cleared')).toEqual([])
    await b.close()
  })

  it('a flapping agent (blocked/working ten times) alerts as the cooldown says: once, then once more when it ends still blocked', async () => {
    const pane = (await sim.request('workspace.create', { cwd: home })).root_pane.pane_id
    await setStatus(pane, 'working')
    // A cooldown longer than the flapping takes on a loaded machine; no settle delay.
    const { b, events } = await bridgeOn('/f', { BRIDGE_ALERT_SETTLE_MS: '0', BRIDGE_ALERT_COOLDOWN_MS: '20000' })
    const started = Date.now()
    for (let i = 0; i < 10; i++) {
      await flip(events, pane, 'blocked')
      await flip(events, pane, 'working')
    }
    expect(Date.now() - started).toBeLessThan(20_000)
    await until(() => posts('/f', 'agent.blocked').length === 1, 'the first alert')
    // Ten blocked states, one alert: the rest fell in its cooldown and had ended by its close.
    await b.bridge.state(push)!.idle()
    expect(posts('/f', 'agent.blocked')).toHaveLength(1)
    // Blocked again inside the cooldown and staying: alerted when the cooldown ends, not before.
    await flip(events, pane, 'blocked')
    expect(posts('/f', 'agent.blocked')).toHaveLength(1)
    await b.bridge.state(push)!.idle()
    expect(posts('/f', 'agent.blocked')).toHaveLength(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(20_000)
    await b.close()
  })
})
