// Headless Chromium for the web client's end-to-end tests: Debian's `chromium` driven by
// playwright-core (no downloaded browsers), with a fresh profile per launch.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { execFileSync } from 'node:child_process'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { vi } from 'vitest'

export const CHROMIUM = '/usr/bin/chromium'
/**
 * One Playwright wait (a locator, a navigation): generous, because on a loaded 2-core machine one
 * step can cover the app's load, the /events seed and the bridge's herdr calls together.
 */
export const WAIT_MS = 60_000
// A test that imports this file gets room for a full wait and more: vitest's 30 s default would
// end it before Playwright could say what it was waiting for (screenshots.ts runs outside vitest).
if (process.env.VITEST) vi.setConfig({ testTimeout: 2 * WAIT_MS })
const ROOT = resolve(import.meta.dirname, '../..')
export const DIST = join(ROOT, 'plugins/web/dist')

function newest(dir: string): number {
  let t = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return t
}

/** Builds the web client when dist/ is missing or older than its sources (CI builds it in `npm ci`'s prepare step). */
export function ensureBuilt(): void {
  const index = join(DIST, 'index.html')
  if (existsSync(index) && statSync(index).mtimeMs >= newest(join(ROOT, 'plugins/web/app'))) return
  execFileSync(process.execPath, [join(ROOT, 'plugins/web/build.mjs')], { stdio: 'inherit' })
}

export interface Browser {
  context: BrowserContext
  page: Page
  close(): Promise<void>
}

// The network here is closed: without these, Chromium stalls on background fetches.
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export async function launch(viewport = { width: 390, height: 844 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'web-e2e-profile-'))
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport, timeout: 60_000 })
  const page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(WAIT_MS)
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => {})
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
