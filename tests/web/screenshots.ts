// Refreshes docs/screenshots/ in headless Chromium, at 390×844 and 1280×800:
//   node --import tsx tests/web/screenshots.ts
// It starts the demo on a spare port, pairs through the web app with the code the demo prints,
// and photographs each view; then the states a bridge shows when it has nothing to show: live
// with no agents (a simulator with none), unreachable, and up without herdr (a bridge with no
// herdr near it). Each shot waits for what shows its view is ready, never for a fixed time.
// Not a test: run it when the web app's look changes.
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { startStack, type Stack } from '../harness/stack.ts'
import { ensureBuilt, launch } from './browser.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const OUT = join(ROOT, 'docs/screenshots')
const PORT = process.env.DEMO_PORT ?? '18797'
const SIZES = [
  [390, 844],
  [1280, 800],
] as const

ensureBuilt()
mkdirSync(OUT, { recursive: true })
const demo = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'tests/harness/demo.ts')], { env: { ...process.env, DEMO_PORT: PORT }, stdio: ['ignore', 'pipe', 'inherit'] })
let printed = ''
const link = await new Promise<string>((res, rej) => {
  const t = setTimeout(() => rej(new Error('the demo printed no pairing link within 120 s')), 120_000)
  demo.stdout.on('data', (d: Buffer) => {
    printed += d.toString()
    const m = /Open the web app:\s+(\S+)/.exec(printed)
    if (m) {
      clearTimeout(t)
      res(m[1])
    }
  })
  demo.once('exit', (code) => rej(new Error(`the demo exited (${code})`)))
})
const base = new URL(link).origin

const browser = await launch()
const page: Page = browser.page
let empty: Stack | undefined
let lonely: TestBridge | undefined

/**
 * Photographs the page at both sizes. `ready` runs after each resize and resolves once the view
 * shows what it should at that size; the shared fonts are awaited too, so no glyph is missing.
 */
async function shoot(name: string, ready?: () => Promise<unknown>): Promise<void> {
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height })
    // In-page alerts come and go on the demo's own clock; they are not what the shot is of.
    await page.addStyleTag({ content: '.toasts{display:none!important}' })
    await ready?.()
    await page.evaluate(() => document.fonts.ready.then(() => undefined))
    await page.screenshot({ path: join(OUT, `${name}-${width}.png`) })
    console.log(`docs/screenshots/${name}-${width}.png`)
  }
  await page.setViewportSize({ width: SIZES[0][0], height: SIZES[0][1] })
}

/**
 * The terminal is fitted: the TUI's last row inside the box, its width inside too (or the font at
 * its smallest, where the box scrolls sideways), and the screen's size and font unchanged for 30
 * frames in a row, so the refit that follows a resize (debounced, refined over frames) is over.
 */
async function terminalFitted(): Promise<void> {
  await page.locator('.term-status', { hasText: 'watching' }).waitFor()
  await page.waitForFunction(
    () => {
      const w = window as unknown as { fitSeen?: string; fitSame?: number }
      const box = document.querySelector('.term')
      const screen = box?.querySelector('.xterm-screen')?.getBoundingClientRect()
      const rows = box?.querySelectorAll('.xterm-rows > div')
      const last = rows?.[rows.length - 1]?.getBoundingClientRect()
      if (!box || !screen || !last || !(box.textContent ?? '').includes('Esc to cancel')) return false
      const inner = box.getBoundingClientRect()
      const font = parseFloat(getComputedStyle(box.querySelector('.xterm-rows')!).fontSize)
      const fits = last.bottom <= inner.bottom + 0.5 && last.bottom <= window.innerHeight && (screen.right <= inner.right + 0.5 || font <= 7)
      const seen = `${screen.width}x${screen.height}@${font}`
      w.fitSame = fits && seen === w.fitSeen ? (w.fitSame ?? 0) + 1 : 0
      w.fitSeen = seen
      return w.fitSame >= 30
    },
    undefined,
    { polling: 'raf' },
  )
}

/** Opens `origin`'s web app as a browser that already stored `bridges` (what pairing stores). */
async function openWith(origin: string, bridges: Array<{ url: string; bearer: string; name: string }>): Promise<void> {
  await page.goto(origin + '/#/')
  const saved = bridges.map((b, i) => ({ key: `b${i + 1}`, url: b.url, bearer: b.bearer, name: b.name, server_id: '', device_id: '' }))
  await page.evaluate((list) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify(list)), saved)
  await page.reload()
}

/** A loopback port nothing listens on: connecting to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res))
  const { port } = server.address() as { port: number }
  await new Promise((res) => server.close(res))
  return port
}

try {
  await page.setViewportSize({ width: SIZES[0][0], height: SIZES[0][1] })
  await page.goto(base + '/')
  await page.getByRole('heading', { name: 'Pair with a bridge' }).waitFor()
  await shoot('pair')
  await page.goto(link)
  await page.getByRole('button', { name: 'Pair', exact: true }).click()
  await page
    .locator('.conn-live')
    .waitFor()
    .catch(async (err) => {
      throw new Error(`${err.message}\n${await page.locator('#content').innerText()}`)
    })
  // All five demo agents, the subagent and the done one: the inbox as the demo means it.
  await page.locator('.agent-row').nth(4).waitFor()
  await page.locator('.subs').first().waitFor()
  await page.locator('.agent-row[data-status="done"]').first().waitFor({ timeout: 120_000 })
  await shoot('inbox')

  const row = (title: string) => page.locator('.agent-row', { hasText: title })
  const cards = { question: (await row('Pick a retry strategy').getAttribute('href'))!, busy: (await row('Retry failed checkouts').getAttribute('href'))! }
  const href = (which: keyof typeof cards, tab: string) => base + '/' + cards[which].replace(/\/card$/, `/${tab}`)

  // A card is whole once its suggestions have answered (they are read beside the card).
  const suggestions = () => page.waitForResponse((r) => new URL(r.url()).pathname === '/suggestions')
  let answered = suggestions()
  await row('Pick a retry strategy').click()
  await answered
  // Enabled once the snapshot carries the question's seq: the card as a user can answer it.
  await page.locator('button.option[data-default="true"]:enabled').waitFor()
  await shoot('card-blocked')

  answered = suggestions()
  await page.goto(href('busy', 'card'))
  await answered
  await page.locator('.card .mode-value').waitFor()
  await shoot('card')

  await page.goto(href('question', 'terminal'))
  // Opened afresh at each size, as a user would: the first fit, not a refit, is what is shown.
  await shoot('terminal', async () => {
    await page.reload()
    await terminalFitted()
  })

  await page.goto(base + '/#/')
  await page.goto(href('busy', 'transcript'))
  const log = page.getByRole('log')
  // A whole turn: its tool calls, then the agent's reply.
  await log.locator('.msg.assistant', { hasText: 'Checkout now retries' }).first().waitFor({ timeout: 120_000 })
  // One tool call opened, to show what a call carries (its diff); the log read from its start.
  const edit = log.locator('details.msg.tool', { hasText: 'Edit' }).first()
  await edit.locator('summary').click()
  await edit.locator('.diff').waitFor()
  await page.mouse.move(0, 0)
  await shoot('transcript', () => log.evaluate((el) => (el.scrollTop = 0)))

  await page.goto(base + '/#/')
  await page.goto(href('busy', 'diff'))
  const file = page.locator('details.file', { hasText: 'src/checkout.ts' })
  await file.waitFor()
  await file.getByRole('button', { name: /Show lines above/ }).click()
  await file.locator('.ln.expanded').first().waitFor()
  // Neither focused nor hovered; scrolled to the file's head, or less where the change would
  // then end below the screen: the context gained above and the whole change under it.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
  await page.mouse.move(0, 0)
  await shoot('diff', () =>
    file.evaluate((el) => {
      const bar = document.querySelector('header.top')!.getBoundingClientRect().bottom
      const adds = el.querySelectorAll('.ln.add')
      const head = el.getBoundingClientRect().top + scrollY - bar - 8
      const end = adds[adds.length - 1].getBoundingClientRect().bottom + scrollY - innerHeight + 24
      scrollTo(0, Math.min(head, end))
    }),
  )

  // A live bridge whose herdr runs no agent yet.
  empty = await startStack()
  const emptyDevice = await empty.bridge.pair('screenshots')
  await openWith(empty.bridge.url, [{ url: empty.bridge.url, bearer: emptyDevice.bearer, name: 'workstation' }])
  await page.locator('.conn-live').waitFor()
  await page.locator('.bridge .empty').waitFor()
  await shoot('empty')

  // A bridge that does not answer: a loopback port with nothing on it.
  const gone = `http://127.0.0.1:${await closedPort()}`
  await openWith(base, [{ url: gone, bearer: 'a'.repeat(64), name: 'workstation' }])
  await page.locator('[data-state="offline"]').waitFor()
  await shoot('unreachable')

  // A bridge up with no herdr near it: the column carries the bridge's own reason.
  lonely = await startBridge()
  const lonelyDevice = await lonely.pair('screenshots')
  await openWith(lonely.url, [{ url: lonely.url, bearer: lonelyDevice.bearer, name: 'workstation' }])
  await page.locator('[data-state="no-herdr"]').waitFor()
  await shoot('no-herdr')
} finally {
  await browser.close()
  await lonely?.close()
  await empty?.close()
  demo.kill('SIGINT')
}
