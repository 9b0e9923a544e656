// Pairing from the QR `bridge pair` prints: by default a link to the web app carrying the code
// (any phone camera opens it), with `--app` the JSON {url, code} for the mobile app. Headless
// Chromium opens the link and pairs; the app's own scanner reads both forms. Chromium on Linux
// has no BarcodeDetector, so the QR's content is checked by encoding the expected text the same
// way, and the scanner gets a stand-in detector that reports what the camera "sees".
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { rmSync } from 'node:fs'
import { renderUnicodeCompact } from 'uqr'
import { startSim, type Sim } from '../harness/sim.ts'
import { cli, sandbox, startDaemon, type Daemon } from '../cli/helpers.ts'
import { ensureBuilt, launch, type Browser } from './browser.ts'

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const box = sandbox('bridge-pair-link-')
let sim: Sim
let env: NodeJS.ProcessEnv
let daemon: Daemon
let browser: Browser

beforeAll(async () => {
  ensureBuilt()
  sim = await startSim({ home: box.home })
  env = { ...box.env, ...sim.clientEnv(), BRIDGE_HERDR_BIN: sim.herdrBin }
  daemon = await startDaemon(env)
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await daemon?.stop()
  await sim?.stop()
  rmSync(box.root, { recursive: true, force: true })
})

const deviceNames = async () => JSON.parse(String((await cli(['devices', 'list', '--json'], env)).stdout)).map((d: { name: string }) => d.name)

describe('bridge pair → the web app', () => {
  it('the QR holds the link <url>/#/pair?code=…, printed beside it; opening it in the browser pairs', async () => {
    const r = await cli(['pair'], env)
    expect(r.exitCode, String(r.stderr)).toBe(0)
    const out = String(r.stdout)
    const link = out
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith(`${daemon.url}/#/pair?code=`))!
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#\/pair\?code=[0-9a-f]{8}$/)
    // The printed QR is exactly the QR of that link.
    expect(out.startsWith(renderUnicodeCompact(link))).toBe(true)
    const page = browser.page
    await page.goto(link)
    await expect.poll(() => page.locator('input[name="code"]').inputValue()).toBe(new URL(link).hash.split('code=')[1])
    await page.locator('input[name="device_name"]').fill('phone camera')
    await page.getByRole('button', { name: 'Pair', exact: true }).click()
    await page
      .getByText(/^Paired with /)
      .first()
      .waitFor()
    expect(await deviceNames()).toContain('phone camera')
  })

  it('the paired app’s "Send test alert" reports per channel', async () => {
    const page = browser.page
    await page.goto(`${daemon.url}/#/alerts`)
    await page.getByRole('button', { name: 'Send test alert' }).click()
    const webpush = page.locator('.test-report li[data-channel="webpush"]')
    await webpush.waitFor()
    expect(await webpush.innerText()).toBe('webpush: not sent (no browser has subscribed (enable alerts in the web app))')
  })

  it('--app makes the JSON QR the mobile app scans', async () => {
    const r = await cli(['pair', '--app'], env)
    const out = String(r.stdout)
    const json = out.trim().split('\n').at(-1)!
    expect(JSON.parse(json)).toEqual({ url: daemon.url, code: expect.stringMatching(/^[0-9a-f]{8}$/) })
    expect(out.startsWith(renderUnicodeCompact(json))).toBe(true)
  })

  for (const form of ['link', 'JSON'] as const) {
    it(`the app's scanner pairs from the ${form} QR`, async () => {
      const r = await cli(['pair', '--json'], env)
      const { url, code } = JSON.parse(String(r.stdout))
      const seen = form === 'link' ? `${url}/#/pair?code=${code}` : JSON.stringify({ url, code })
      const b = await launch()
      try {
        const page = b.page
        // A camera and a detector that sees `seen` in its first frame.
        await page.addInitScript((raw: string) => {
          ;(globalThis as { BarcodeDetector?: unknown }).BarcodeDetector = class {
            async detect() {
              return [{ rawValue: raw }]
            }
          }
          Object.defineProperty(navigator, 'mediaDevices', {
            value: {
              getUserMedia: async () => {
                const canvas = document.createElement('canvas')
                const g = canvas.getContext('2d')!
                // A moving picture, so the video element has frames to play.
                setInterval(() => g.fillRect(Math.random() * 100, 0, 10, 10), 50)
                return canvas.captureStream(20)
              },
            },
          })
        }, seen)
        await page.goto(`${daemon.url}/#/pair`)
        await page.locator('input[name="device_name"]').fill(`scanned ${form}`)
        await page.getByRole('button', { name: 'Scan QR code' }).click()
        await page
          .getByText(/^Paired with /)
          .first()
          .waitFor()
        expect(await deviceNames()).toContain(`scanned ${form}`)
      } finally {
        await b.close()
      }
    })
  }
})
