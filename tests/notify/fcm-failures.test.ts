import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createConsola } from 'consola'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import type { BusEvent } from '../../core/bus.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyFcm from '../../plugins/notify-fcm/index.ts'
import { startFakeFcm, type FakeFcm } from '../push/fake-fcm.ts'

/**
 * The FCM channel's failure log, through the real firebase-admin SDK against the local fake FCM:
 * a device's outage is one warning, its recovery is logged, and a later outage warns again.
 */

let fcm: FakeFcm
let b: TestBridge
let home: string
let device: string
const events: BusEvent[] = []
const lines: string[] = []

beforeAll(async () => {
  fcm = await startFakeFcm()
  home = mkdtempSync(join(tmpdir(), 'fcm-failures-'))
  const sa = join(home, 'sa.json')
  writeFileSync(sa, JSON.stringify(fcm.serviceAccount))
  const log = createConsola({ level: 5, reporters: [{ log: (o) => void lines.push(`${o.type} ${o.args.join(' ')}`) }] }).withTag('bridge')
  b = await startBridge({
    home,
    log,
    env: { BRIDGE_SERVICE_ACCOUNT: sa, GOOGLE_APPLICATION_CREDENTIALS: '', GCE_METADATA_HOST: '127.0.0.1:1', CLOUDSDK_CONFIG: join(home, 'gcloud') },
    user: { plugins: [pairing, push, [notifyFcm, { httpAgent: fcm.agent, backoffMs: [10] }]] },
  })
  b.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
  const d = await b.pair('phone')
  device = d.id
  expect((await b.request('/register-token', { method: 'POST', token: d.bearer, json: { token: 'phone-token' } })).status).toBe(200)
})
afterAll(async () => {
  await b?.close()
  await fcm?.close()
  rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
})

/** One blocked alert on `pane`, waited for until every channel has answered. */
async function alert(pane: string) {
  b.bridge.ctx.bus.publish('multiplexer', 'pane_agent_status_changed', {
    pane_id: pane,
    workspace_id: pane.split(':')[0],
    agent: 'claude',
    agent_status: 'blocked',
    session: 'default',
  })
  return until(
    () => events.find((e) => e.type === 'push_sent' && e.payload.agent === pane),
    () => `push_sent for ${pane}`,
  )
}

describe('fcm failure log', () => {
  it('warns once per failing device, says when it works again, and warns at its next outage', async () => {
    const fcmLines = () => lines.filter((l) => / fcm: /.test(` ${l}`) && !l.startsWith('debug '))
    fcm.behave.set('phone-token', 'forbidden')
    expect((await alert('w1:p1')).payload).toMatchObject({ sent: 0, total: 1 })
    expect((await alert('w1:p2')).payload).toMatchObject({ sent: 0, total: 1 })
    fcm.behave.delete('phone-token')
    expect((await alert('w1:p3')).payload).toMatchObject({ sent: 1, total: 1 })
    fcm.behave.set('phone-token', 'forbidden')
    expect((await alert('w1:p4')).payload).toMatchObject({ sent: 0, total: 1 })
    const warned = fcmLines().filter((l) => l.startsWith('warn '))
    expect(warned).toHaveLength(2)
    expect(warned[0]).toMatch(new RegExp(`^warn fcm: device ${device}: messaging/[a-z-]+: .*\\(further failures of this target are not logged until it works again\\)$`))
    expect(warned[1]).toBe(warned[0])
    expect(fcmLines()).toEqual([warned[0], `info fcm: device ${device} works again`, warned[0]])
  })
})
