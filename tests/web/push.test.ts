// Web push in the browser, against the real bridge in headless Chromium: the control appears
// only when the bridge serves a Firebase web config (and says so in GET /notify/web), the push worker is served and installed.
// The boundary: Firebase's getToken needs Google's servers (FCM registration and the browser's
// push service), which this machine cannot reach, so the enable flow is followed up to that call
// and its failure is checked to be reported, with no /register-token sent. Nothing of Google's
// is faked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page, Request } from 'playwright-core'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import { ensureBuilt, launch, type Browser } from './browser.ts'

let bridge: TestBridge
let browser: Browser
let page: Page
let device: { id: string; bearer: string }
const requests: Request[] = []

const CONFIG = {
  apiKey: 'AIzaSyTest-not-a-real-key',
  authDomain: 'herdr-test.firebaseapp.com',
  projectId: 'herdr-test',
  storageBucket: 'herdr-test.appspot.com',
  messagingSenderId: '123456789012',
  appId: '1:123456789012:web:0123456789abcdef',
  // A syntactically valid P-256 public key (base64url, 65 bytes uncompressed).
  vapidKey: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U',
}

const pathOf = (r: Request) => new URL(r.url()).pathname
const seen = (path: string) => requests.filter((r) => pathOf(r) === path)

/** Loads the app as a paired browser (the bridge stored as the pairing screen stores it). */
async function openApp(): Promise<void> {
  await page.goto(bridge.url + '/')
  const saved = [{ key: 'b1', url: bridge.url, bearer: device.bearer, name: 'test bridge', server_id: bridge.bridge.ctx.config.server_id, device_id: device.id }]
  await page.evaluate((list) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify(list)), saved)
  // Leave first, so nothing the previous page still had in flight is counted: this one page load.
  await page.goto('about:blank')
  requests.length = 0
  const offer = page.waitForResponse((r) => new URL(r.url()).pathname === '/notify/web')
  await page.goto(bridge.url + '/')
  await offer
  // The inbox column is drawn once the app has read its bridges; the header is drawn with it.
  await page.locator('section.bridge').waitFor()
}

beforeAll(async () => {
  ensureBuilt()
  bridge = await startBridge()
  device = await bridge.pair('push browser')
  browser = await launch()
  page = browser.page
  page.on('request', (r) => requests.push(r))
})

afterAll(async () => {
  await browser?.close()
  await bridge?.close()
})

describe('web push', () => {
  it('serves the push worker as a no-cache script that pulls in /sw.js', async () => {
    const res = await fetch(bridge.url + '/firebase-messaging-sw.js')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expect(res.headers.get('etag')).toBeTruthy()
    const body = await res.text()
    expect(body).toMatch(/importScripts\(["'`]\/sw\.js["'`]\)/)
    expect(body).toContain('addEventListener(`push`')
    // Self-contained: a classic worker script cannot import modules or reach a CDN.
    expect(body).not.toMatch(/^\s*import\s|https?:\/\//m)
    const again = await fetch(bridge.url + '/firebase-messaging-sw.js', { headers: { 'if-none-match': res.headers.get('etag')! } })
    expect(again.status).toBe(304)
  })

  it('keeps Firebase out of the main bundle (a separate chunk, loaded only when push is enabled)', async () => {
    const html = await (await fetch(bridge.url + '/')).text()
    const main = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]
    const js = await (await fetch(bridge.url + main)).text()
    expect(js).not.toContain('fcmregistrations')
    expect(js).toMatch(/\/assets\/fcm-[\w-]+\.js|fcm-[\w-]+\.js/)
  })

  it('without firebase-web.json: the bridge says so, no GET /push-config (its 404 is for mobile clients), and no push control', async () => {
    await openApp()
    const offer = seen('/notify/web')
    expect(offer).toHaveLength(1)
    expect(await (await offer[0].response())!.json()).toEqual({ push_config: false, webpush_key: true })
    expect(seen('/push-config')).toEqual([])
    expect((await bridge.request('/push-config', { token: null })).status).toBe(404)
    expect(await page.locator('.push-toggle').count()).toBe(0)
    expect(await page.getByRole('button', { name: /push/i }).count()).toBe(0)
    // Nothing push-related was fetched or registered.
    expect(requests.filter((r) => /\/assets\/fcm-|firebase-messaging-sw|register-token/.test(r.url()))).toEqual([])
    // The rest of the app is unaffected: the alerts control is still there.
    await page.getByRole('button', { name: 'Enable alerts' }).waitFor()
  })

  it('with firebase-web.json: shows "Enable push"; enabling installs the push worker and stops at getToken', async () => {
    writeFileSync(join(bridge.dataDir, 'firebase-web.json'), JSON.stringify(CONFIG))
    try {
      await openApp()
      expect(await (await seen('/notify/web')[0].response())!.json()).toEqual({ push_config: true, webpush_key: true })
      await until(() => seen('/push-config').length, 'GET /push-config')
      const cfg = seen('/push-config')
      expect(cfg).toHaveLength(1)
      expect((await cfg[0].response())!.status()).toBe(200)
      const button = page.getByRole('button', { name: 'Enable push' })
      await button.waitFor()
      // It stands in for "Enable alerts" (the same permission), so the header stays one row.
      expect(await page.getByRole('button', { name: 'Enable alerts' }).count()).toBe(0)
      expect(await page.evaluate(() => window.isSecureContext && 'PushManager' in window)).toBe(true)
      // Firebase is not loaded until the click.
      expect(seen('/firebase-messaging-sw.js')).toHaveLength(0)
      expect(requests.filter((r) => pathOf(r).startsWith('/assets/fcm-'))).toHaveLength(0)

      await browser.context.grantPermissions(['notifications'], { origin: bridge.url })
      await button.click()
      const failure = page.locator('.toast-error', { hasText: 'Push not enabled:' })
      await failure.waitFor({ state: 'attached', timeout: 45_000 })
      // Up to the boundary: the push worker took over the app's scope, the Firebase chunk loaded.
      const script = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/'))?.active?.scriptURL ?? '')
      expect(script).toBe(bridge.url + '/firebase-messaging-sw.js')
      expect(requests.filter((r) => pathOf(r).startsWith('/assets/fcm-'))).toHaveLength(1)
      // No token, so nothing is registered and push is not marked on; the control stays to retry.
      expect(seen('/register-token')).toHaveLength(0)
      expect(await page.evaluate(() => localStorage.getItem('herdr-bridge.push.v1'))).toBeNull()
      await page.getByRole('button', { name: 'Enable push' }).waitFor()
      expect(await page.getByRole('button', { name: 'Enable push' }).isEnabled()).toBe(true)
    } finally {
      rmSync(join(bridge.dataDir, 'firebase-web.json'), { force: true })
    }
  }, 90_000)
})
