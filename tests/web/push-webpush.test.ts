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
import type { BusEvent } from '../../core/bus.ts'
import { ensureBuilt, launch, type Browser } from './browser.ts'
import { startStandIn, type StandIn } from '../notify/stand-in.ts'
import { browserKeys, decrypt } from '../notify/webpush-crypto.ts'

let bridge: TestBridge
let browser: Browser
let page: Page
let svc: StandIn
let device: { id: string; bearer: string }
const requests: Request[] = []
const events: BusEvent[] = []
const seen = (path: string) => requests.filter((r) => new URL(r.url()).pathname === path)

beforeAll(async () => {
  ensureBuilt()
  svc = await startStandIn()
  bridge = await startBridge({ env: { BRIDGE_WEBPUSH_INSECURE: '1' } })
  device = await bridge.pair('alerts browser')
  bridge.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
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
    p.setDefaultTimeout(60_000)
    // Any page of the origin reaches the worker's registration; nothing on it needs to load.
    await p.goto(bridge.url + '/manifest.webmanifest', { waitUntil: 'commit' })
    return await read(p)
  } finally {
    await p.close()
  }
}

function pushWorker() {
  const sw = browser.context.serviceWorkers().find((w) => w.url() === bridge.url + '/firebase-messaging-sw.js')
  if (!sw) throw new Error(`no push worker; workers: ${browser.context.serviceWorkers().map((w) => w.url())}`)
  return sw
}

/**
 * What a successful subscribe leaves for the worker (push-bridges.ts): the paired bridges in
 * IndexedDB, which the subscribe that stopped at the push service never got to write.
 */
async function mirrorBridges(list: { server_id: string; url: string; bearer: string }[]) {
  await pushWorker().evaluate(
    (list) =>
      new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('herdr-bridge-push', 1)
        open.onupgradeneeded = () => open.result.createObjectStore('kv')
        open.onerror = () => reject(open.error)
        open.onsuccess = () => {
          const tx = open.result.transaction('kv', 'readwrite')
          tx.objectStore('kv').put(list, 'bridges')
          tx.oncomplete = () => (open.result.close(), resolve())
          tx.onerror = () => reject(tx.error)
        }
      }),
    list,
  )
}

/**
 * Headless Chromium draws no notification to click, so the worker's own notificationclick
 * listeners get the event from inside the worker, with the notification it shows; what they
 * hand to waitUntil is awaited before this returns.
 */
async function click(action: string) {
  await pushWorker().evaluate(async (action) => {
    // The service worker's globals (ServiceWorkerGlobalScope), which the DOM lib does not declare.
    const g = globalThis as unknown as {
      registration: ServiceWorkerRegistration
      NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event
      dispatchEvent(event: Event): boolean
    }
    const [notification] = await g.registration.getNotifications()
    const event = new g.NotificationEvent('notificationclick', { notification, action })
    const pending: Promise<unknown>[] = []
    Object.defineProperty(event, 'waitUntil', { value: (p: Promise<unknown>) => void pending.push(p) })
    g.dispatchEvent(event)
    await Promise.allSettled(pending)
  }, action)
}

async function read(p: Page) {
  return p.evaluate(async () => {
    const reg = await navigator.serviceWorker.getRegistration('/')
    const list = (await reg?.getNotifications()) ?? []
    return list.map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      data: n.data,
      actions: (n as Notification & { actions?: { action: string; title: string }[] }).actions?.map((a) => ({ action: a.action, title: a.title })) ?? [],
    }))
  })
}

/** This browser paired with the bridge, as pairing leaves it. */
const saved = () => [{ key: 'b1', url: bridge.url, bearer: device.bearer, name: 'test bridge', server_id: bridge.bridge.ctx.config.server_id, device_id: device.id }]

describe('web push without Firebase', () => {
  it('offers "Enable alerts" from /webpush/key; enabling installs the push worker and stops at the push service', async () => {
    await page.goto(bridge.url + '/')
    await page.evaluate((list) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify(list)), saved())
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

  it("the push worker shows the bridge's decrypted alert with its tag, offers Approve, closes it on the dismissal and opens the pane on a click", async () => {
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
      cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
        const r = e.registrations.find((x) => !x.isDeleted && x.scopeURL === bridge.url + '/')
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

    // Approve posts /approve with the alert's seq; the bridge refuses it (no such agent) and the
    // alert is replaced by that outcome, not left silent.
    await mirrorBridges([{ server_id: sid, url: bridge.url, bearer: device.bearer }])
    await click('approve')
    const approved = await vi.waitFor(() => events.find((e) => e.type === 'approve_applied') ?? Promise.reject(new Error('no /approve yet')), { timeout: 20_000, interval: 100 })
    expect(approved.payload).toMatchObject({ pane: 'w1:p1', seq: 7, applied: false })
    const outcome = await notifications()
    expect(outcome.map((n) => [n.title, n.tag])).toEqual([[`Not approved: ${approved.payload.reason}`, `${sid}/w1:p1`]])

    await deliver(dismiss)
    await vi.waitFor(async () => expect(await notifications()).toEqual([]), { timeout: 20_000, interval: 100 })

    // A click on the alert closes it and takes the app's window to the pane.
    await deliver(alert)
    await vi.waitFor(async () => expect(await notifications()).toHaveLength(1), { timeout: 20_000, interval: 100 })
    await page.goto(bridge.url + '/')
    await click('')
    // The app turns #/open/<server id>/<pane> into its own #/agent/<bridge>/<pane> at once, so on a
    // slow machine the first form can come and go between two looks: either one is the pane.
    await vi.waitFor(() => expect(page.url()).toMatch(new RegExp(`^${bridge.url}/#/(open/${sid}|agent/b1)/w1%3Ap1(/|$)`)), { timeout: 20_000, interval: 100 })
    // Read from the window the click just navigated: a fresh page opened while the worker is
    // still handling its click can wait on it indefinitely.
    expect(await read(page)).toEqual([])
    await cdp.detach()
  }, 90_000)

  it('"Stop Web Push here" takes this browser\'s subscription off the bridge, which then sends it nothing', async () => {
    // The browser's push service is out of reach, so the Push API is stood in for at its boundary
    // (PushManager in the page): a subscription to the loopback push service, kept across loads.
    const keys = browserKeys()
    const endpoint = `${svc.url}/stop-test`
    await page.addInitScript(
      ([endpoint, p256dh, auth]) => {
        const KEY = 'test.push-subscription'
        const make = (serverKey: ArrayBuffer) => ({
          endpoint,
          expirationTime: null,
          options: { userVisibleOnly: true, applicationServerKey: serverKey },
          toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
          unsubscribe: async () => (localStorage.removeItem(KEY), true),
        })
        PushManager.prototype.subscribe = async function (o?: PushSubscriptionOptionsInit) {
          const key = new Uint8Array(o!.applicationServerKey as ArrayBuffer)
          localStorage.setItem(KEY, JSON.stringify([...key]))
          return make(key.buffer) as unknown as PushSubscription
        }
        PushManager.prototype.getSubscription = async function () {
          const saved = localStorage.getItem(KEY)
          return saved ? (make(new Uint8Array(JSON.parse(saved)).buffer) as unknown as PushSubscription) : null
        }
      },
      [endpoint, keys.p256dh, keys.auth],
    )
    const sentTo = async () => {
      // /notify/test answers once every channel has sent: what reached this endpoint is known then.
      expect((await bridge.request('/notify/test', { method: 'POST', token: device.bearer, json: {} })).status).toBe(200)
      return svc.received.filter((r) => r.path === '/stop-test').length
    }
    await browser.context.grantPermissions(['notifications'], { origin: bridge.url })
    await page.goto(bridge.url + '/#/')
    await page.evaluate((list) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify(list)), saved())
    // Not waiting for "load": the worker of the test before may still be finishing its notification
    // click, which can hold the page's load event; the app's own button says when it is ready.
    await page.reload({ waitUntil: 'domcontentloaded' })
    await page.getByRole('button', { name: 'Enable alerts' }).click()
    await page.getByRole('button', { name: 'Alerts on' }).waitFor()
    expect(await sentTo()).toBe(1)

    await page.goto(bridge.url + '/#/alerts')
    await page.getByRole('button', { name: 'Stop Web Push here' }).click()
    await page.locator('.confirm').getByRole('button', { name: 'Stop Web Push here' }).click()
    await page.locator('.result.ok', { hasText: 'This browser gets no Web Push from this bridge now' }).waitFor()
    expect(await sentTo()).toBe(1)
  }, 90_000)
})
