// Standard Web Push in the browser, against the real bridge in headless Chromium, with no
// Firebase anywhere: "Enable alerts" appears because the bridge answers GET /webpush/key, and
// enabling installs the push worker and asks the Push API for a subscription with that key.
// The boundary: the browser's own push service (Google's, for Chromium) is unreachable here, so
// the subscription fails and that failure must be reported with nothing sent to the bridge.
// Past it, the bridge's real encrypted message (made for a subscription held by the test,
// received by a loopback push-service stand-in and decrypted per RFC 8291) is handed to the
// push worker through DevTools' ServiceWorker.deliverPushMessage.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { CDPSession, Page, Request } from 'playwright-core'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { ensureBuilt, launch, type Browser } from './browser.ts'
import { startStandIn, type StandIn } from '../notify/stand-in.ts'
import { browserKeys, decrypt } from '../notify/webpush-crypto.ts'

let bridge: TestBridge
let browser: Browser
let page: Page
let svc: StandIn
let device: { id: string; bearer: string }
const requests: Request[] = []
const seen = (path: string) => requests.filter((r) => new URL(r.url()).pathname === path)

beforeAll(async () => {
  ensureBuilt()
  svc = await startStandIn()
  bridge = await startBridge({ env: { BRIDGE_WEBPUSH_INSECURE: '1' } })
  device = await bridge.pair('alerts browser')
  browser = await launch()
  page = browser.page
  page.on('request', (r) => requests.push(r))
})

afterAll(async () => {
  await browser?.close()
  await bridge?.close()
  await svc?.close()
})

/** The worker's notifications, read from a page of the origin opened just for that (an open window would make the worker leave alerts to it). */
async function notifications() {
  const p = await browser.context.newPage()
  try {
    await p.goto(bridge.url + '/manifest.webmanifest')
    return await read(p)
  } finally {
    await p.close()
  }
}

async function read(p: Page) {
  return p.evaluate(async () => {
    const reg = await navigator.serviceWorker.getRegistration('/')
    const list = (await reg?.getNotifications()) ?? []
    return list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data, actions: (n as any).actions?.map((a: any) => ({ action: a.action, title: a.title })) ?? [] }))
  })
}

describe('web push without Firebase', () => {
  it('offers "Enable alerts" from /webpush/key; enabling installs the push worker and stops at the push service', async () => {
    await page.goto(bridge.url + '/')
    const saved = [{ key: 'b1', url: bridge.url, bearer: device.bearer, name: 'test bridge', server_id: bridge.bridge.ctx.config.server_id, device_id: device.id }]
    await page.evaluate((list) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify(list)), saved)
    requests.length = 0
    const key = page.waitForResponse((r) => new URL(r.url()).pathname === '/webpush/key')
    await page.reload()
    expect((await key).status()).toBe(200)
    const button = page.getByRole('button', { name: 'Enable alerts' })
    await button.waitFor()
    expect(await page.locator('.alerts-toggle').count()).toBe(1)
    // Nothing of Firebase is offered or fetched.
    expect(await page.locator('.push-toggle').count()).toBe(0)
    expect(requests.filter((r) => /\/assets\/fcm-|register-token/.test(r.url()))).toEqual([])

    await browser.context.grantPermissions(['notifications'], { origin: bridge.url })
    await button.click()
    await page.locator('.toast-error', { hasText: 'Alerts not enabled:' }).waitFor({ state: 'attached', timeout: 45_000 })
    const script = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/'))?.active?.scriptURL ?? '')
    expect(script).toBe(bridge.url + '/firebase-messaging-sw.js')
    // No subscription, so nothing was sent to the bridge and alerts are not marked on.
    expect(seen('/webpush/subscribe')).toHaveLength(0)
    expect(await page.evaluate(() => localStorage.getItem('herdr-bridge.webpush.v1'))).toBeNull()
    expect(await page.getByRole('button', { name: 'Enable alerts' }).isEnabled()).toBe(true)
  }, 90_000)

  it("the push worker shows the bridge's decrypted alert with its tag, offers Approve, and closes it on the dismissal", async () => {
    // The bridge's real message for a subscription the test holds, decrypted as the browser would.
    const keys = browserKeys()
    const sub = await bridge.request('/webpush/subscribe', {
      method: 'POST',
      token: device.bearer,
      json: { endpoint: `${svc.url}/sw-test`, keys: { p256dh: keys.p256dh, auth: keys.auth } },
    })
    expect(sub.status).toBe(200)
    const sid = bridge.bridge.ctx.config.server_id
    const publish = (status: string) =>
      bridge.bridge.ctx.bus.publish('multiplexer', 'pane_agent_status_changed', { pane_id: 'w1:p1', workspace_id: 'w1', agent: 'claude', agent_status: status, session: 'default' })
    publish('blocked')
    const alertReq = await svc.waitFor((r) => r.path === '/sw-test')
    const alert = decrypt(alertReq.body, keys)
    publish('working')
    const dismissReq = await svc.waitFor((r) => r.path === '/sw-test' && r !== alertReq)
    const dismiss = decrypt(dismissReq.body, keys)
    expect(JSON.parse(dismiss)).toEqual({ type: 'dismiss', tag: `${sid}/w1:p1`, server_id: sid, pane: 'w1:p1' })

    const cdp: CDPSession = await browser.context.newCDPSession(page)
    const registration = new Promise<string>((resolve) =>
      cdp.on('ServiceWorker.workerRegistrationUpdated', (e: any) => {
        const r = e.registrations.find((x: any) => !x.isDeleted && x.scopeURL === bridge.url + '/')
        if (r) resolve(r.registrationId)
      }),
    )
    await cdp.send('ServiceWorker.enable')
    const registrationId = await registration
    // No window of the app is open, so the worker draws the alert (a visible app shows its own).
    await page.goto('about:blank')
    const deliver = (data: string) => cdp.send('ServiceWorker.deliverPushMessage', { origin: bridge.url, registrationId, data })
    await deliver(alert)
    await vi.waitFor(async () => expect(await notifications()).toHaveLength(1), { timeout: 20_000, interval: 100 })
    expect(await notifications()).toEqual([
      { title: `${bridge.bridge.ctx.config.server_name} · w1:p1`, body: 'Needs you', tag: `${sid}/w1:p1`, data: { url: `#/open/${sid}/w1%3Ap1` }, actions: [] },
    ])

    // An alert carrying a seq and the card's confirm label gets the Approve action, same tag.
    const withSeq = { ...JSON.parse(alert), seq: 7, approve: 'Yes' }
    await deliver(JSON.stringify(withSeq))
    await vi.waitFor(async () => expect((await notifications())[0]?.actions).toEqual([{ action: 'approve', title: 'Yes' }]), { timeout: 20_000, interval: 100 })
    expect(await notifications()).toHaveLength(1)
    expect((await notifications())[0].data).toEqual({ url: `#/open/${sid}/w1%3Ap1`, approve: { server_id: sid, pane: 'w1:p1', seq: 7 } })

    await deliver(dismiss)
    await vi.waitFor(async () => expect(await notifications()).toEqual([]), { timeout: 20_000, interval: 100 })
    await cdp.detach()
  }, 90_000)
})
