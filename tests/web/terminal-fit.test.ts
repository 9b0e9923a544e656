// The terminal fits: at 390 px and 1280 px the last row of a full-screen agent TUI is on screen,
// the page itself does not scroll, the key bar stays inside the viewport, the shipped fonts draw
// the agent's glyphs, watching leaves the desk pane's size alone and taking control fits it; a
// shell's output past the screen is in the scrollback, and the wheel scrolls back to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import { ensureBuilt, launch, WAIT_MS, type Browser } from './browser.ts'

let stack: Stack
let browser: Browser
let page: Page
let pane: string

/** The fake claude draws a rule of (cols - 1) "─" above its prompt: the pane's width, read from herdr. */
async function paneCols(): Promise<number> {
  const text = (await stack.sim.request('pane.read', { pane_id: pane, source: 'visible', format: 'text' })).read.text as string
  const rule = text.split('\n').find((l) => /^─{6,}$/.test(l.trim()))
  return rule ? rule.trim().length + 1 : 0
}

/** Where the terminal's last row is, against the viewport and the terminal box. */
const lastRow = () =>
  page.evaluate(() => {
    const rows = document.querySelectorAll('.xterm-rows > div')
    const last = rows[rows.length - 1] as HTMLElement | undefined
    const box = document.querySelector('.term')!.getBoundingClientRect()
    const r = last?.getBoundingClientRect()
    const keybar = document.querySelector('.keybar') as HTMLElement
    const kb = keybar.getBoundingClientRect()
    return {
      rows: rows.length,
      text: last?.textContent ?? '',
      bottom: r?.bottom ?? Infinity,
      top: r?.top ?? Infinity,
      boxTop: box.top,
      boxBottom: box.bottom,
      viewport: window.innerHeight,
      pageScrolls: document.scrollingElement!.scrollHeight > window.innerHeight + 1,
      // Inside the viewport and on one row (it scrolls sideways on a phone rather than wrapping).
      keybarInside:
        kb.bottom <= window.innerHeight + 0.5 &&
        kb.right <= window.innerWidth + 0.5 &&
        new Set(Array.from(keybar.children).map((k) => Math.round(k.getBoundingClientRect().top))).size === 1,
      font: getComputedStyle(document.querySelector('.xterm-rows')!).fontFamily,
    }
  })

beforeAll(async () => {
  ensureBuilt()
  stack = await startStack()
  const created = await stack.sim.request('sim.create_agent_pane', {
    kind: 'claude',
    cwd: stack.home,
    label: 'tui',
    script: {
      start: 'idle',
      history: [
        { role: 'user', text: 'Draw the box' },
        { role: 'assistant', text: 'Here it is.' },
      ],
    },
  })
  pane = created.pane.pane_id
  browser = await launch()
  page = browser.page
  await page.goto(stack.bridge.url + '/')
  const d = await stack.bridge.pair('fit browser')
  await page.evaluate(
    (b) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify([{ key: 'b1', url: b.url, bearer: b.bearer, name: 'fit', server_id: '', device_id: '' }])),
    { url: stack.bridge.url, bearer: d.bearer },
  )
})

afterAll(async () => {
  await browser?.close()
  await stack?.close()
})

describe('terminal fit', () => {
  for (const [width, height] of [
    [390, 844],
    [1280, 800],
  ]) {
    it(`at ${width}×${height} watching shows the whole height of a 120×40 TUI, its last row on screen, and leaves the pane alone`, async () => {
      expect(await paneCols()).toBe(120)
      await page.setViewportSize({ width, height })
      await page.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(pane)}/terminal`)
      await page.reload()
      await page.locator('.term-status', { hasText: 'watching' }).waitFor()
      // The mode line is the TUI's last row.
      await expect.poll(async () => (await lastRow()).text, { timeout: 20_000 }).toContain('? for shortcuts')
      // The font is refined over a few animation frames until the screen fits: wait for the last
      // row to settle inside the box (a busy machine draws those frames late), then check it all.
      await expect.poll(async () => ((at) => at.bottom <= at.boxBottom + 0.5 && at.top >= at.boxTop - 0.5)(await lastRow()), { timeout: 20_000 }).toBe(true)
      const at = await lastRow()
      expect(at.rows).toBe(40)
      expect(at.bottom).toBeLessThanOrEqual(at.boxBottom + 0.5)
      expect(at.bottom).toBeLessThanOrEqual(at.viewport)
      expect(at.top).toBeGreaterThanOrEqual(at.boxTop - 0.5)
      expect(at.pageScrolls).toBe(false)
      expect(at.keybarInside).toBe(true)
      expect(at.font).toContain('DejaVu Mono')
      // The agent's glyphs come from the shipped fonts, not whatever the system has.
      expect(await page.evaluate(() => document.fonts.check("13px 'DejaVu Mono'", '✻─') && document.fonts.check("13px 'Noto Sans Symbols 2'", '⏺'))).toBe(true)
      expect(await page.locator('.xterm-rows').textContent()).toContain('⏺ Here it is.')
      // Watching never resizes the desk pane.
      expect(await paneCols()).toBe(120)
    })
  }

  it('resizing the window while watching refits, both ways, without a reload', async () => {
    for (const [width, height] of [
      [390, 844],
      [1280, 800],
      [390, 844],
    ]) {
      await page.setViewportSize({ width, height })
      await expect
        .poll(
          async () => {
            const at = await lastRow()
            return at.bottom <= Math.min(at.boxBottom + 0.5, at.viewport) && at.top >= at.boxTop - 0.5 && !at.pageScrolls && at.keybarInside
          },
          { timeout: 10_000 },
        )
        .toBe(true)
    }
    expect(await paneCols()).toBe(120)
  })

  it('taking control at 390 px fits the pane to the phone and keeps its last row on screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.getByRole('button', { name: 'Take control' }).click()
    await page.locator('.term-status', { hasText: 'in control' }).waitFor()
    await expect.poll(() => paneCols(), { timeout: 20_000 }).toBeLessThan(120)
    await expect.poll(async () => (await lastRow()).text, { timeout: 20_000 }).toContain('? for shortcuts')
    const at = await lastRow()
    expect(at.bottom).toBeLessThanOrEqual(Math.min(at.boxBottom + 0.5, at.viewport))
    expect(at.pageScrolls).toBe(false)
    expect(at.keybarInside).toBe(true)
  })

  it("scrollback scrolls: a shell's history past the screen is reached with the wheel, and the page stays put", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    const shell = (await stack.sim.request('workspace.create', { cwd: stack.home, label: 'scroll' })).root_pane.pane_id as string
    // 200 lines on a 40-row pane: the first ones are history when the terminal attaches.
    await stack.sim.request('pane.send_text', { pane_id: shell, text: 'seq -f line-%g 1 200\r' })
    await until(
      async () => ((await stack.sim.request('pane.read', { pane_id: shell, source: 'visible', format: 'text' })).read.text as string).includes('line-200'),
      'line-200 in the pane',
    )
    await page.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(shell)}/terminal`)
    await page.locator('.term-status', { hasText: 'watching' }).waitFor()
    const rows = () => page.locator('.xterm-rows > div').evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()))
    await expect.poll(rows, { timeout: WAIT_MS }).toContain('line-200')
    expect(await rows()).not.toContain('line-1')
    await page.locator('.term .xterm-screen').hover()
    await expect
      .poll(
        async () => {
          await page.mouse.wheel(0, -2000)
          return rows()
        },
        { timeout: WAIT_MS },
      )
      .toContain('line-1')
    expect(await rows()).not.toContain('line-200')
    expect(await page.evaluate(() => document.scrollingElement!.scrollTop)).toBe(0)
  })
})
