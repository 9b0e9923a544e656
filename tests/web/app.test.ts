// The web client end to end: headless Chromium against the real bridge and the herdr simulator
// (real PTYs, fake claude agents). One browser and one page for the whole file; the tests run
// in order and build on each other (pair → inbox → approve → reply → transcript → diff → terminal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { Stack } from '../harness/stack.ts'
import { launch, type Browser } from './browser.ts'
import { until } from '../harness/wait.ts'
import { startWebStack, type WebStack } from './rig.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

let web: WebStack
let stack: Stack
let browser: Browser
let page: Page
let repo: string
let blockedPane: string
let chatPane: string
let shellPane: string
// Screenshots go to docs/screenshots/ when WEB_SCREENSHOTS=1 (to refresh the README's), else to a temp dir.
const screen = (pane: string) => web.screen(pane)
const screenHas = (pane: string, needle: string) => web.screenHas(pane, needle)
const shoot = (name: string) => web.shoot(page, name)

function rawStatus(path: string): Promise<number> {
  const u = new URL(stack.bridge.url)
  return new Promise((res, rej) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET' }, (r) => {
      r.resume()
      res(r.statusCode ?? 0)
    })
    req.on('error', rej)
    req.end()
  })
}

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd: repo, stdio: 'ignore' })
}

beforeAll(async () => {
  web = await startWebStack()
  stack = web.stack
  repo = web.repo
  git('init', '-q', '-b', 'main')
  writeFileSync(join(repo, 'notes.txt'), Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + '\n')
  git('add', '.')
  git('commit', '-q', '-m', 'init')
  writeFileSync(join(repo, 'notes.txt'), Array.from({ length: 40 }, (_, i) => (i === 29 ? 'line 30 changed' : `line ${i + 1}`)).join('\n') + '\n')

  chatPane = await web.agent(
    {
      start: 'idle',
      history: [
        { role: 'user', text: 'Add a notes file' },
        { role: 'assistant', text: 'I wrote notes.txt with forty lines.' },
      ],
      default_reply: 'Sure, tests added.',
      work_ms: 300,
    },
    'chat',
  )
  blockedPane = await web.agent({ start: 'permission', default_reply: 'All tests pass.', work_ms: 300 }, 'blocked')
  shellPane = (await stack.sim.request('workspace.create', { cwd: stack.home, label: 'shell' })).root_pane.pane_id
  browser = await launch()
  page = browser.page
})

afterAll(async () => {
  await browser?.close()
  await web?.close()
})

describe('web client', () => {
  it('serves the app shell and its assets with the right types and caching', async () => {
    const shell = await fetch(stack.bridge.url + '/')
    expect(shell.status).toBe(200)
    expect(shell.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(shell.headers.get('cache-control')).toBe('no-cache')
    expect(shell.headers.get('content-security-policy')).toMatch(/^default-src 'self';/)
    expect(shell.headers.get('x-content-type-options')).toBe('nosniff')
    const html = await shell.text()
    const js = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1]
    expect(js).toBeTruthy()
    const asset = await fetch(stack.bridge.url + js)
    expect(asset.status).toBe(200)
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(asset.headers.get('content-security-policy')).toBeNull()
    const head = await fetch(stack.bridge.url + js, { method: 'HEAD' })
    expect([head.status, head.headers.get('etag'), await head.text()]).toEqual([200, asset.headers.get('etag'), ''])
    const sw = await fetch(stack.bridge.url + '/sw.js')
    expect(sw.headers.get('cache-control')).toBe('no-cache')
    expect(sw.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    const manifest = await fetch(stack.bridge.url + '/manifest.webmanifest')
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json; charset=utf-8')
    const m = await manifest.json()
    expect(m.start_url).toBe('/')
    for (const icon of m.icons) {
      const r = await fetch(stack.bridge.url + icon.src)
      expect([icon.src, r.status, r.headers.get('content-type')]).toEqual([icon.src, 200, icon.type])
    }
    // An unlisted path gets the shell; a missing file, a directory or an escape gets 404.
    expect((await fetch(stack.bridge.url + '/some/view')).headers.get('content-type')).toBe('text/html; charset=utf-8')
    // Sent raw (fetch would normalise the dot segments away before they reach the bridge).
    for (const p of [
      '/assets/',
      '/assets/nope.js',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets/../../package.json',
      '/assets/..%2f..%2fpackage.json',
      '/icons/..%2f..%2fpackage.json',
      '/icons/%2e%2e%2f%2e%2e%2fpackage.json',
      '/missing.png',
    ]) {
      expect([p, await rawStatus(p)]).toEqual([p, 404])
    }
  })

  it('pairs in the browser with a one-time code and keeps the bridge in localStorage', async () => {
    await page.goto(stack.bridge.url + '/')
    await page.getByRole('heading', { name: 'Pair with a bridge' }).waitFor()
    await shoot('pair')
    const { code } = await (await stack.bridge.request('/admin/pairing', { method: 'POST' })).json()
    await page.getByLabel('Pairing code').fill(code)
    await page.getByLabel("This device's name").fill('e2e browser')
    await page.getByRole('button', { name: 'Pair', exact: true }).click()
    await page.locator('section.bridge .conn-live').waitFor()
    const saved = JSON.parse((await page.evaluate(() => localStorage.getItem('herdr-bridge.bridges.v1'))) ?? '[]')
    expect(saved).toHaveLength(1)
    expect(saved[0].url).toBe(stack.bridge.url)
    expect(saved[0].bearer).toMatch(/^[0-9a-f]{64}$/)
    const devices = await (await stack.bridge.request('/admin/devices')).json()
    expect(JSON.stringify(devices)).toContain('e2e browser')
    // The service worker installs (loopback counts as a secure context), so the app can be installed.
    const sw = await page.evaluate(() =>
      Promise.race([navigator.serviceWorker.ready.then((r) => r.active?.scriptURL ?? ''), new Promise<string>((r) => setTimeout(() => r('timeout'), 15_000))]),
    )
    expect(sw).toBe(stack.bridge.url + '/sw.js')
    // The stored bearer is a working device bearer.
    expect((await stack.bridge.request('/info', { token: saved[0].bearer })).status).toBe(200)
  })

  it('lists the agents in the bridge order, blocked first, with badges, branch and workspace', async () => {
    const snap = ((await (await stack.bridge.request('/snapshot')).json()) as GetResponses['/snapshot']).result.snapshot
    const expected = [...snap.agents].sort((a, b) => a.attention_rank - b.attention_rank || a.recency_rank - b.recency_rank).map((a) => a.pane_id)
    expect(expected).toHaveLength(2)
    expect(expected[0]).toBe(blockedPane)
    const rows = page.locator('.agent-row')
    await until(async () => (await rows.count()) === 2, 'two agent rows')
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-pane')))).toEqual(expected)
    const first = rows.first()
    expect(await first.getAttribute('data-status')).toBe('blocked')
    expect(await first.locator('.badge').textContent()).toBe('blocked')
    expect(await first.locator('.branch').textContent()).toBe('⎇ main')
    expect(await first.locator('.ws').textContent()).toBe('blocked')
    expect(await page.locator('.group-title').first().textContent()).toContain('Blocked')
    await shoot('inbox')
  })

  it("approves a blocked agent with the card's default button and the agent moves on in its pane", async () => {
    await page.locator(`.agent-row[data-pane="${blockedPane}"]`).click()
    const yes = page.locator('button.option[data-default="true"]')
    await yes.waitFor()
    expect(await page.locator('#card-headline').textContent()).toBe('Do you want to proceed?')
    expect(await page.locator('button.option').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Yes'), expect.stringContaining('No, and tell Claude')]))
    await shoot('card-blocked')
    expect(await screen(blockedPane)).toContain('Do you want to proceed?')
    await yes.click()
    await screenHas(blockedPane, 'All tests pass.')
    expect(await screen(blockedPane)).not.toContain('Do you want to proceed?')
    const after = await until(async () => {
      const snap = ((await (await stack.bridge.request('/snapshot')).json()) as GetResponses['/snapshot']).result.snapshot
      const st = snap.agents.find((a) => a.pane_id === blockedPane)?.agent_status
      return st === 'idle' || st === 'done' ? (st as string) : undefined
    }, 'the agent to finish its turn')
    await page.locator(`.agent-head .badge-${after}`).waitFor()
    // The in-page alert for an agent that finished while the app is open.
    if (after === 'done') await page.locator('.toast-alert', { hasText: 'is done' }).waitFor({ state: 'attached' })
    await until(async () => (await page.locator('button.option').count()) === 0, 'the options to go away')
  })

  it('types a reply that the agent receives and answers', async () => {
    await page.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(chatPane)}/card`)
    await page.locator('#card-headline').waitFor()
    const box = page.getByLabel('Reply to the agent')
    await box.fill('Please add tests')
    await box.press('Enter')
    await screenHas(chatPane, '> Please add tests')
    await screenHas(chatPane, 'Sure, tests added.')
    expect(await box.inputValue()).toBe('')
    await shoot('card')
  })

  it('shows slash-command completion in the reply box', async () => {
    const box = page.getByLabel('Reply to the agent')
    await box.fill('/')
    const list = page.getByRole('listbox', { name: 'Slash commands' })
    await list.waitFor()
    const first = (await list.getByRole('option').first().locator('strong').textContent())!
    expect(first.startsWith('/')).toBe(true)
    await box.press('Tab')
    expect(await box.inputValue()).toBe(`${first} `)
    await box.fill('')
  })

  it('reads the transcript: history, the reply and the answer', async () => {
    await page.getByRole('link', { name: 'Transcript' }).click()
    const log = page.getByRole('log')
    await log.locator('.msg.user', { hasText: 'Add a notes file' }).waitFor()
    await log.locator('.msg.assistant', { hasText: 'I wrote notes.txt with forty lines.' }).waitFor()
    await log.locator('.msg.user', { hasText: 'Please add tests' }).waitFor()
    await log.locator('.msg.assistant', { hasText: 'Sure, tests added.' }).waitFor()
    await shoot('transcript')
  })

  it('opens the diff and expands the lines above a hunk', async () => {
    await page.getByRole('link', { name: 'Changes' }).click()
    const file = page.locator('details.file', { hasText: 'notes.txt' })
    await file.waitFor()
    expect(await file.locator('.counts').textContent()).toBe('+1 −1')
    expect(await file.locator('.ln.add .code').allTextContents()).toEqual(['line 30 changed'])
    expect(await file.locator('.ln.del .code').allTextContents()).toEqual(['line 30'])
    await shoot('diff')
    await file.getByRole('button', { name: /Show lines above/ }).click()
    await file.locator('.ln.expanded').first().waitFor()
    // The hunk starts at line 27 (3 lines of context); expand brings up to 20 lines above it.
    expect(await file.locator('.ln.expanded .code').allTextContents()).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i + 7}`))
  })

  it('opens the terminal watching, takes control and runs a command', async () => {
    await page.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(shellPane)}/terminal`)
    await page.locator('.term-status', { hasText: 'watching' }).waitFor()
    expect(await page.getByRole('button', { name: 'Escape' }).isDisabled()).toBe(true)
    await page.getByRole('button', { name: 'Take control' }).click()
    await page.locator('.term-status', { hasText: 'in control' }).waitFor()
    await page.locator('.xterm-helper-textarea').focus()
    await page.keyboard.type('echo web-$((6*7))')
    await page.keyboard.press('Enter')
    await until(async () => ((await page.locator('.xterm-rows').textContent()) ?? '').includes('web-42'), 'the output in xterm')
    await screenHas(shellPane, 'web-42')
    // The key bar: Ctrl+C abandons a half-typed line.
    await page.keyboard.type('echo never-run')
    await page.getByRole('button', { name: 'Control C' }).click()
    // The shell shows ^C and a fresh prompt before the next line is typed: keys typed while it is
    // still handling the interrupt may be discarded with the abandoned line.
    await screenHas(shellPane, 'never-run^C')
    await page.locator('.xterm-helper-textarea').focus()
    await page.keyboard.type('echo after-$((1+1))')
    await page.keyboard.press('Enter')
    await screenHas(shellPane, 'after-2')
    expect(await screen(shellPane)).not.toContain('\nnever-run')
    await shoot('terminal')
  })

  it('shows a plain shell pane opened by URL as a terminal only, without the agent tabs', async () => {
    const snap = ((await (await stack.bridge.request('/snapshot')).json()) as GetResponses['/snapshot']).result.snapshot
    expect(snap.agents.some((a) => a.pane_id === shellPane)).toBe(false)
    expect(snap.panes.find((p) => p.pane_id === shellPane)?.agent).toBeUndefined()
    // From the inbox, so nothing of the previous terminal view is still on the page.
    await page.goto(`${stack.bridge.url}/#/`)
    await page.locator('.agent-row').first().waitFor()
    expect(await page.locator('.term-status').count()).toBe(0)
    await page.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(shellPane)}/card`)
    await page.locator('.term-status').waitFor()
    const tabs = page.getByRole('navigation', { name: 'Agent views' }).getByRole('link')
    expect(await tabs.allTextContents()).toEqual(['Terminal'])
    expect(await page.locator('#card-headline').count()).toBe(0)
    // An agent pane keeps all four.
    await page.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(chatPane)}/card`)
    await page.locator('#card-headline').waitFor()
    expect(await tabs.allTextContents()).toEqual(['Agent', 'Terminal', 'Transcript', 'Changes'])
  })

  it('follows a link taken while the app first draws, before it listens for links', async () => {
    const { bearer } = await stack.bridge.pair('early')
    const p = await browser.context.newPage()
    // The moment the app has drawn its first view, the page is sent to Usage: the app's listener
    // for that comes after the first paint, so it used to miss it and stay on the inbox.
    await p.addInitScript(
      ([url, bearer]) => {
        localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify([{ key: 'b1', url, bearer, name: 'early', server_id: '', device_id: '' }]))
        new MutationObserver((_, seen) => {
          if (!document.getElementById('app')?.childElementCount) return
          seen.disconnect()
          location.hash = '#/usage'
        }).observe(document, { childList: true, subtree: true })
      },
      [stack.bridge.url, bearer],
    )
    await p.goto(`${stack.bridge.url}/#/`)
    await p.getByRole('heading', { name: 'Usage' }).waitFor()
    expect(new URL(p.url()).hash).toBe('#/usage')
    await p.close()
  })
})
