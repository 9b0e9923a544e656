// Refreshes docs/screenshots/ from `npm run demo` in headless Chromium, at 390×844 and 1280×800:
//   node --import tsx tests/web/screenshots.ts
// It starts the demo on a spare port, pairs through the web app with the code the demo prints,
// and photographs each view. Not a test: run it when the web app's look changes.
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { ensureBuilt, launch } from './browser.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const OUT = join(ROOT, 'docs/screenshots')
const PORT = process.env.DEMO_PORT ?? '18797'

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
const until = async (fn: () => Promise<boolean>, what: string, ms = 30_000) => {
  const end = Date.now() + ms
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

async function shoot(name: string, ready?: () => Promise<unknown>): Promise<void> {
  await page.addStyleTag({ content: '.toasts{display:none!important}' })
  for (const [width, height] of [
    [390, 844],
    [1280, 800],
  ]) {
    await page.setViewportSize({ width, height })
    await ready?.()
    // The terminal refits 150 ms after a resize.
    await new Promise((r) => setTimeout(r, 600))
    await page.screenshot({ path: join(OUT, `${name}-${width}.png`) })
    console.log(`docs/screenshots/${name}-${width}.png`)
  }
  await page.setViewportSize({ width: 390, height: 844 })
}

try {
  await page.setViewportSize({ width: 390, height: 844 })
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
  await until(async () => (await page.locator('.agent-row').count()) >= 5, 'the demo agents')
  await until(async () => (await page.locator('.subs').count()) >= 1, 'the subagent count')
  await shoot('inbox')

  const row = (title: string) => page.locator('.agent-row', { hasText: title })
  const cards = { question: (await row('Pick a retry strategy').getAttribute('href'))!, busy: (await row('Retry failed checkouts').getAttribute('href'))! }
  const href = (which: keyof typeof cards, tab: string) => cards[which].replace(/\/card$/, `/${tab}`)

  await row('Pick a retry strategy').click()
  await page.locator('button.option[data-default="true"]').waitFor()
  await shoot('card-blocked')

  await page.goto(base + '/' + href('question', 'terminal'))
  await page.locator('.term-status', { hasText: 'watching' }).waitFor()
  await until(async () => ((await page.locator('.xterm-rows').textContent()) ?? '').includes('Esc to cancel'), 'the TUI in the terminal')
  await shoot('terminal')

  await page.goto(base + '/#/')
  await page.goto(base + '/' + href('busy', 'transcript'))
  await page.getByRole('log').locator('.msg.tool').nth(2).waitFor({ timeout: 60_000 })
  await shoot('transcript', () => page.getByRole('log').evaluate((el) => el.querySelector('.transcript-scroll, .msg:last-child')?.scrollIntoView({ block: 'end' })))

  await page.goto(base + '/#/')
  await page.goto(base + '/' + href('busy', 'diff'))
  const file = page.locator('details.file', { hasText: 'src/checkout.ts' })
  await file.waitFor()
  await file.getByRole('button', { name: /Show lines above/ }).click()
  await file.locator('.ln.expanded').first().waitFor()
  await shoot('diff')
} finally {
  await browser.close()
  demo.kill('SIGINT')
}
