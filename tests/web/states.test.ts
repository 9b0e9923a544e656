// The web client tells the user why it has nothing to show, in states they can act on: the
// bridge unreachable, its token refused, herdr not reachable (with the bridge's own reason); a
// normal load is clean; "Enable alerts" only when alerts can be delivered; the agent view's
// badge follows the card after an approve. Headless Chromium against real bridges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConsoleMessage, Page, Response } from 'playwright-core'
import { startStack, type Stack } from '../harness/stack.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { defineConfig } from '../../core/plugin.ts'
import { defaultPlugins } from '../../index.ts'
import notifyWebpush from '../../plugins/notify-webpush/index.ts'
import { until } from '../harness/wait.ts'
import { ensureBuilt, launch, type Browser } from './browser.ts'

let stack: Stack
let lonely: TestBridge
let browser: Browser
let page: Page
let blocked: string
const errors: string[] = []
const failures: string[] = []
const responses: Response[] = []

/** Opens `origin`'s web app as a browser that already stored `bridges` (what pairing stores). */
async function openWith(origin: string, bridges: Array<{ url: string; bearer: string; name?: string }>): Promise<void> {
  await page.goto(origin + '/#/')
  const saved = bridges.map((b, i) => ({ key: `b${i + 1}`, url: b.url, bearer: b.bearer, name: b.name ?? 'test bridge', server_id: '', device_id: '' }))
  await page.evaluate((list) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify(list)), saved)
  // Leave first, so nothing the previous page had in flight is counted against this load.
  await page.goto('about:blank')
  errors.length = 0
  failures.length = 0
  responses.length = 0
  await page.goto(origin + '/#/')
}

beforeAll(async () => {
  ensureBuilt()
  stack = await startStack()
  blocked = (
    await stack.sim.request('sim.create_agent_pane', {
      kind: 'claude',
      cwd: stack.home,
      label: 'api',
      script: { start: 'permission', work_ms: 300, default_reply: 'All tests pass.' },
    })
  ).pane.pane_id
  // A bridge with no herdr anywhere near it, and no way to alert a browser: no Web Push channel
  // (its plugin left out, as a user config may) and no Firebase web config.
  lonely = await startBridge({ user: defineConfig({ plugins: defaultPlugins.filter((p) => p !== notifyWebpush) }) })
  browser = await launch()
  page = browser.page
  page.on('console', (m: ConsoleMessage) => m.type() === 'error' && errors.push(m.text()))
  page.on('requestfailed', (r) => failures.push(`${r.method()} ${r.url()} ${r.failure()?.errorText}`))
  page.on('response', (r: Response) => {
    responses.push(r)
    if (r.status() >= 400) failures.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`)
  })
})

afterAll(async () => {
  await browser?.close()
  await lonely?.close()
  await stack?.close()
})

describe('web client states', () => {
  it('a normal load goes live and fails no request; Enable alerts because the bridge serves a Web Push key', async () => {
    const device = await stack.bridge.pair('states browser')
    await openWith(stack.bridge.url, [{ url: stack.bridge.url, bearer: device.bearer }])
    await page.locator('.conn-live').waitFor()
    await page.locator(`.agent-row[data-pane="${blocked}"]`).waitFor()
    // Alerts can be delivered (GET /webpush/key answers), so the control is there.
    await page.getByRole('button', { name: 'Enable alerts' }).waitFor()
    await page.waitForLoadState('networkidle')
    // Not even GET /push-config's 404 (no Firebase config here): the bridge said it has none.
    expect(failures).toEqual([])
    expect(errors).toEqual([])
    expect(await page.locator('[data-state]').count()).toBe(0)
  })

  it('a bridge that does not answer: says so, names the address, offers Retry', async () => {
    await openWith(stack.bridge.url, [{ url: 'http://127.0.0.1:9', bearer: 'a'.repeat(64), name: 'gone' }])
    const state = page.locator('[data-state="offline"]')
    await state.waitFor()
    expect(await state.locator('p').first().textContent()).toBe('cannot reach http://127.0.0.1:9: is the bridge running, and is this address reachable from this device?')
    expect(await page.locator('.conn').textContent()).toBe('unreachable')
    await state.getByRole('button', { name: 'Retry now' }).click()
    await page.locator('[data-state="offline"]').waitFor()
  })

  it('a refused token: says the device is no longer paired and links to pairing', async () => {
    await openWith(stack.bridge.url, [{ url: stack.bridge.url, bearer: 'f'.repeat(64) }])
    const state = page.locator('[data-state="unpaired"]')
    await state.waitFor()
    expect(await state.locator('p').textContent()).toBe("The bridge refused this device's token: it was revoked, or the bridge's data was reset.")
    expect(await page.locator('.conn').textContent()).toBe('not paired')
    await state.getByRole('link', { name: 'Pair again' }).click()
    await page.getByRole('heading', { name: 'Pair with a bridge' }).waitFor()
  })

  it("a bridge up without herdr: shows the bridge's own reason instead of connecting forever", async () => {
    const device = await lonely.pair('states browser')
    await openWith(lonely.url, [{ url: lonely.url, bearer: device.bearer }])
    const state = page.locator('[data-state="no-herdr"]')
    await state.waitFor()
    const text = (await state.locator('p').first().textContent())!
    expect(text).toMatch(
      /^the bridge is up but reaches no herdr session: cannot reach herdr at \/\S+herdr\.sock: ENOENT; start herdr on this machine \(or point the bridge at it\) and this clears by itself$/,
    )
    expect(await page.locator('.conn').textContent()).toBe('no herdr')
  })

  it('no "Enable alerts" where no alert can reach this browser, and the app asks for neither way', async () => {
    const device = await lonely.pair('states browser 3')
    await openWith(lonely.url, [{ url: lonely.url, bearer: device.bearer }])
    const offer = await until(() => responses.find((r) => r.url() === `${lonely.url}/notify/web`), 'GET /notify/web')
    expect([offer.status(), await offer.json()]).toEqual([200, { push_config: false, webpush_key: false }])
    // The header (with its Add bridge link) and the column are drawn: the app has settled.
    await page.locator('[data-state="no-herdr"]').waitFor()
    await page.getByRole('link', { name: 'Add bridge' }).waitFor()
    expect(await page.getByRole('button', { name: /^Enable (alerts|push)$/ }).count()).toBe(0)
    expect(responses.map((r) => new URL(r.url()).pathname).filter((p) => p === '/webpush/key' || p === '/push-config')).toEqual([])
  })

  it('after an approve the badge follows the card at once, never contradicting it', async () => {
    const device = await stack.bridge.pair('states browser 2')
    // The fake agent reports "blocked" on its own clock: the bridge must show the question (with
    // its options) before the page is asked to.
    await until(
      async () => {
        const res = await stack.bridge.request(`/agent-state?pane=${encodeURIComponent(blocked)}`, { token: device.bearer })
        return res.status === 200 && ((await res.json()) as { blocked?: { options?: unknown[] } }).blocked?.options?.length
      },
      `GET /agent-state to show ${blocked}'s question with options`,
      60_000,
    )
    await openWith(stack.bridge.url, [{ url: stack.bridge.url, bearer: device.bearer }])
    await page.locator('.conn-live').waitFor()
    await page.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(blocked)}/card`)
    // Enabled only once the snapshot carries the question's seq (an earlier tap would be refused as stale).
    const yes = page.locator('button.option[data-default="true"]:enabled')
    await yes.waitFor()
    expect(await page.locator('.agent-head .badge').textContent()).toBe('blocked')
    // Every DOM change from here on is checked: the badge says "blocked" exactly when the card
    // shows the question's group, and it settles on idle or done with the group gone.
    await page.evaluate(() => {
      const w = window as unknown as { contradictions: string[]; settled: boolean }
      w.contradictions = []
      w.settled = false
      const check = () => {
        const badge = document.querySelector('.agent-head .badge')?.textContent ?? ''
        const group = document.querySelector('.card .blocked') !== null
        if ((badge === 'blocked') !== group)
          w.contradictions.push(`badge ${badge} with${group ? '' : 'out'} the question (${document.querySelectorAll('button.option').length} options)`)
        if (!group && (badge === 'idle' || badge === 'done')) w.settled = true
      }
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
    })
    await yes.click()
    await page.waitForFunction(() => (window as unknown as { settled: boolean }).settled, undefined, { timeout: 60_000 })
    expect(await page.evaluate(() => (window as unknown as { contradictions: string[] }).contradictions)).toEqual([])
    expect(await page.locator('button.option').count()).toBe(0)
  })
})
