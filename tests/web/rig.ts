// What the browser tests share: the stack (simulator + bridge) with a repository folder, fake
// claude agents made in it, what a pane's screen shows, and screenshots (docs/screenshots/ with
// WEB_SCREENSHOTS=1, to refresh the docs' images; else a temp dir removed at the end).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Page } from 'playwright-core'
import { startStack, type Stack } from '../harness/stack.ts'
import type { startSim } from '../harness/sim.ts'
import { until } from '../harness/wait.ts'
import { ensureBuilt } from './browser.ts'

type Sim = Awaited<ReturnType<typeof startSim>>

/** Where this file's screenshots go (made now). */
export function shotsDir(): { dir: string; done(): void } {
  const docs = !!process.env.WEB_SCREENSHOTS
  const dir = docs ? resolve(import.meta.dirname, '../../docs/screenshots') : mkdtempSync(join(tmpdir(), 'web-shots-'))
  mkdirSync(dir, { recursive: true })
  return { dir, done: () => void (docs || rmSync(dir, { recursive: true, force: true })) }
}

/** `<name>-<width>.png` at each width (a phone's 844 px tall, else 800), toasts hidden for the shot only; back at 390 after. */
export async function shoot(page: Page, dir: string, name: string, widths: number[] = [390, 1280]): Promise<void> {
  const hide = await page.addStyleTag({ content: '.toasts{display:none!important}' })
  for (const width of widths) {
    await page.setViewportSize({ width, height: width < 1024 ? 844 : 800 })
    await page.screenshot({ path: join(dir, `${name}-${width}.png`) })
  }
  await page.setViewportSize({ width: 390, height: 844 })
  await hide.evaluate((e) => (e as Element).remove())
}

/** The visible text of a pane, as herdr reads it. */
export const paneText = async (sim: Sim, pane: string): Promise<string> =>
  (await sim.request('pane.read', { pane_id: pane, source: 'visible', format: 'text' })).read.text as string

/** Waits until a pane's screen shows `needle`. */
export const paneHas = (sim: Sim, pane: string, needle: string, ms?: number) =>
  until(async () => (await paneText(sim, pane)).includes(needle), `"${needle}" on ${pane}'s screen`, ms)

export interface WebStack {
  stack: Stack
  /** An empty folder in the stack's HOME where agents start. */
  repo: string
  shots: string
  screen(pane: string): Promise<string>
  screenHas(pane: string, needle: string): Promise<unknown>
  /** A fake claude in `repo` running `script`; its pane id. */
  agent(script: Record<string, unknown>, label: string): Promise<string>
  shoot(page: Page, name: string, widths?: number[]): Promise<void>
  close(): Promise<void>
}

/** The web client built, the stack started with a `repo` folder, and a place for screenshots. */
export async function startWebStack(): Promise<WebStack> {
  ensureBuilt()
  const shots = shotsDir()
  const stack = await startStack()
  const repo = join(stack.home, 'repo')
  mkdirSync(repo, { recursive: true })
  return {
    stack,
    repo,
    shots: shots.dir,
    screen: (pane) => paneText(stack.sim, pane),
    screenHas: (pane, needle) => paneHas(stack.sim, pane, needle),
    agent: async (script, label) => (await stack.sim.request('sim.create_agent_pane', { kind: 'claude', cwd: repo, label, script })).pane.pane_id as string,
    shoot: (page, name, widths) => shoot(page, shots.dir, name, widths),
    async close() {
      await stack.close()
      shots.done()
    },
  }
}
