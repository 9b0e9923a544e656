// Which channels this device's alerts go out on, from the Alerts view in headless Chromium against
// the real bridge and the herdr simulator: the device turns Web Push off with its switch, an agent
// blocks, and the bridge sends that device's browser nothing while the webhook (bridge-wide, listed
// read-only) still gets the alert; turned on again, the next blocked agent reaches the browser.
// The browser's own push service is unreachable here (push-webpush.test.ts), so the subscription
// the bridge delivers to is held by the test for the same device, at a loopback stand-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { startSim } from '../harness/sim.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import type { BusEvent } from '../../core/bus.ts'
import { startStandIn, type StandIn } from '../notify/stand-in.ts'
import { browserKeys } from '../notify/webpush-crypto.ts'
import { ensureBuilt, launch, type Browser } from './browser.ts'

let home: string
let sim: Awaited<ReturnType<typeof startSim>>
let bridge: TestBridge
let browser: Browser
let page: Page
let svc: StandIn
let device: { id: string; bearer: string }
const events: BusEvent[] = []
const SHOTS = process.env.WEB_SCREENSHOTS ? resolve(import.meta.dirname, '../../docs/screenshots') : ''

beforeAll(async () => {
  ensureBuilt()
  home = mkdtempSync(join(tmpdir(), 'web-alert-channels-'))
  svc = await startStandIn()
  sim = await startSim({ home, testMode: true })
  bridge = await startBridge({
    home,
    env: { PATH: sim.clientEnv().PATH!, BRIDGE_WEBPUSH_INSECURE: '1', BRIDGE_WEBHOOK_URL: `${svc.url}/hook`, BRIDGE_WEBHOOK_SECRET: '', BRIDGE_NTFY_URL: '' },
  })
  bridge.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
  device = await bridge.pair('alerts phone')
  // This device's browser subscription, as "Enable alerts" would have sent it.
  const keys = browserKeys()
  const sub = await bridge.request('/webpush/subscribe', {
    method: 'POST',
    token: device.bearer,
    json: { endpoint: `${svc.url}/push/phone`, keys: { p256dh: keys.p256dh, auth: keys.auth } },
  })
  expect(sub.status).toBe(200)
  browser = await launch()
  page = browser.page
  await page.goto(bridge.url + '/#/')
  await page.evaluate(
    ([url, bearer]) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify([{ key: 'b1', url, bearer, name: 'test bridge', server_id: '', device_id: '' }])),
    [bridge.url, device.bearer],
  )
  await page.goto('about:blank')
  await page.goto(`${bridge.url}/#/alerts`)
})

afterAll(async () => {
  await browser?.close()
  await bridge?.close()
  await sim?.stop()
  await svc?.close()
  if (home) rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
})

const toBrowser = () => svc.received.filter((r) => r.path === '/push/phone').length
const hooked = (pane: string) => svc.received.some((r) => r.path === '/hook' && JSON.parse(r.body.toString()).pane === pane)

/** A claude agent that starts on a permission question: herdr reports it blocked, and the bridge alerts. */
async function blockedAgent(label: string): Promise<string> {
  const pane = (await sim.request('sim.create_agent_pane', { kind: 'claude', cwd: home, label, script: { start: 'permission', default_reply: 'ok' } })).pane.pane_id as string
  await until(() => events.find((e) => e.type === 'push_sent' && e.payload.agent === pane), `the alert of ${label}`, 60_000)
  return pane
}

const webPushSwitch = () => page.getByRole('switch', { name: 'Web Push (browsers of this device) alerts on this device' })
const state = async () => (await (await bridge.request('/notify/channels', { token: device.bearer })).json()).channels

describe('alert channels in the app', { timeout: 180_000 }, () => {
  it('lists the per-device channels with a switch and the bridge-wide ones read-only', async () => {
    await webPushSwitch().waitFor()
    expect(await webPushSwitch().isChecked()).toBe(true)
    const wide = page.getByRole('list', { name: 'Channels of the whole bridge' })
    expect(await wide.locator('li[data-channel="webhook"]').textContent()).toMatch(/^\s*Webhooks: on\s*$/)
    expect(await wide.locator('li[data-channel="ntfy"]').textContent()).toMatch(/^\s*ntfy topic: not set up\s*$/)
    expect(await wide.getByRole('switch').count()).toBe(0)
    // FCM runs with no credentials: the device may still choose it, and the view says it is not set up.
    expect(await page.locator('li[data-channel="fcm"]').textContent()).toMatch(/^\s*FCM push \(the phone app\):\s*not set up on this bridge\s*$/)
  })

  it('turns Web Push off for this device: the next alert reaches the webhook but not this browser; on again, it does', async () => {
    const first = await blockedAgent('before')
    expect(hooked(first)).toBe(true)
    const before = toBrowser()
    expect(before).toBe(1)

    await webPushSwitch().click()
    await page.locator('li[data-channel="webpush"][data-on="false"]').waitFor()
    expect((await state()).find((c: { channel: string }) => c.channel === 'webpush')).toEqual({ channel: 'webpush', per_device: true, configured: true, on: false })
    if (SHOTS) await shoot('alert-channels')

    const second = await blockedAgent('while-off')
    await until(() => hooked(second), 'the webhook post of the second alert')
    expect(toBrowser()).toBe(before)

    await webPushSwitch().click()
    await page.locator('li[data-channel="webpush"][data-on="true"]').waitFor()
    await blockedAgent('on-again')
    await until(() => toBrowser() === before + 1, 'the third alert at the browser')
  })
})

async function shoot(name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true })
  const hide = await page.addStyleTag({ content: '.toasts{display:none!important}' })
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 })
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`) })
  }
  await page.setViewportSize({ width: 390, height: 844 })
  await hide.evaluate((e) => (e as Element).remove())
}
