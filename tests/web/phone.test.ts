// The web app on a phone (390×844, headless Chromium, real bridge, simulator with fake claude):
// options that answer only their own question (approve with option and seq, a settle time, risky
// options asked twice, each outcome shown); the composer (seq while a question is shown, send
// states, files, photos and the camera as chips whose paths reach the agent, errors in words,
// a masked field for a password prompt); voice controls present only where the browser has the
// API (Chromium headless has no speech recognition: it is stubbed at the browser API boundary
// only, and removed to show absence); the terminal's readable watch view at ≥ 11 px that leaves
// the desk's 120×40 pane alone, and a key bar on one row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import { launch, type Browser } from './browser.ts'
import { startWebStack, type WebStack } from './rig.ts'
import { PNG } from '../attachments/samples.ts'
import type { PostBodies } from '../../plugins/web/app/src/lib/api-types.ts'

let web: WebStack
let stack: Stack
let browser: Browser
let page: Page
// Screenshots go to docs/screenshots/ when WEB_SCREENSHOTS=1, else to a temp dir; a phone's only.
const shoot = (p: Page, name: string) => web.shoot(p, name, [390])
const screen = (pane: string) => web.screen(pane)
const screenHas = (pane: string, needle: string) => web.screenHas(pane, needle)
/** The user prompt starting with `start` as a fake claude wrote it to its transcript under $HOME/.claude/projects. */
function sentToAgent(start: string): string | undefined {
  const root = join(stack.home, '.claude', 'projects')
  if (!existsSync(root)) return undefined
  for (const dir of readdirSync(root))
    for (const f of readdirSync(join(root, dir)).filter((n) => n.endsWith('.jsonl')))
      for (const line of readFileSync(join(root, dir, f), 'utf8').split('\n')) {
        if (!line.includes(start)) continue
        const content = JSON.parse(line)?.message?.content
        const text = typeof content === 'string' ? content : content?.find?.((c: { type?: string; text?: string }) => c.type === 'text')?.text
        if (typeof text === 'string' && text.startsWith(start)) return text
      }
  return undefined
}
const agent = (script: Record<string, unknown>, label: string) => web.agent(script, label)
const open = async (p: Page, pane: string, tab = 'card') => {
  await p.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(pane)}/${tab}`)
  // A hash change alone keeps the app as it started; a load reads the paired bridge.
  await p.reload()
}

let bearer = ''
async function pairedPage(init?: string): Promise<Page> {
  const p = await browser.context.newPage()
  if (init) await p.addInitScript(init)
  await p.goto(stack.bridge.url + '/')
  await p.evaluate(
    (b) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify([{ key: 'b1', url: b.url, bearer: b.bearer, name: 'phone', server_id: '', device_id: '' }])),
    { url: stack.bridge.url, bearer },
  )
  return p
}

beforeAll(async () => {
  web = await startWebStack()
  stack = web.stack
  bearer = (await stack.bridge.pair('phone')).bearer
  browser = await launch({ width: 390, height: 844 })
  page = await pairedPage()
  page.setDefaultTimeout(60_000)
})

afterAll(async () => {
  await browser?.close()
  await web?.close()
})

describe('options answer only their own question', () => {
  it('posts /approve with option and seq, asks once more for a risky option, and shows the outcome', async () => {
    const pane = await agent({ start: 'permission', default_reply: 'Finished.', work_ms: 300, permission: { name: 'Bash', input: { command: 'rm -rf build' } } }, 'risky')
    const approvals: PostBodies['/approve'][] = []
    page.on('request', (r) => void (r.url().endsWith('/approve') && approvals.push(r.postDataJSON())))
    await open(page, pane)
    const risky = page.locator('button.option[data-risky="true"]')
    await risky.waitFor()
    expect(await risky.textContent()).toContain("don't ask again")
    // Only the option that widens permissions is marked.
    expect(await page.locator('button.option[data-risky="true"]').count()).toBe(1)
    await risky.click()
    await page.locator('button.option.confirming', { hasText: 'Tap again to choose' }).waitFor()
    await shoot(page, 'option-risky-confirm')
    expect(approvals).toEqual([])
    const seq = (await stack.sim.request('agent.get', { target: pane })).agent.state_change_seq
    await risky.click()
    await page.locator('.answer-state[data-state="accepted"]').waitFor()
    expect(approvals).toEqual([{ agent: pane, seq, option: 2 }])
    await screenHas(pane, 'Finished.')
  })
  it('ignores taps for a moment after the options appear or move', async () => {
    const pane = await agent(
      {
        start: 'permission',
        default_reply: 'Finished.',
        work_ms: 300,
        permission: { name: 'Bash', input: { command: 'npm test', description: 'Run the whole test suite of the project once' } },
      },
      'settle',
    )
    const approvals: string[] = []
    page.on('request', (r) => void (r.url().endsWith('/approve') && approvals.push(pane)))
    await open(page, pane)
    // Watched in the page (the window is short on a loaded machine): every time the options are
    // settling, whether all their buttons are disabled (a tap on a disabled button does nothing).
    const settled = () =>
      page.waitForFunction(
        () => {
          const o = document.querySelector('.options') as HTMLElement | null
          return o && o.dataset.settling === 'true' ? Array.from(o.querySelectorAll('button')).every((b) => (b as HTMLButtonElement).disabled) : false
        },
        undefined,
        { polling: 'raf' },
      )
    // Just appeared: settling.
    await settled()
    const opts = page.locator('.options')
    await until(async () => (await opts.getAttribute('data-settling')) === null && !(await page.locator('button.option').first().isDisabled()), 'the options to settle')
    // The phone turns narrower: the text above wraps, the options move down, and on the card's
    // next render they settle again.
    const before = (await opts.boundingBox())!.y
    await page.setViewportSize({ width: 300, height: 844 })
    await settled()
    expect((await opts.boundingBox())!.y).toBeGreaterThan(before)
    await page.setViewportSize({ width: 390, height: 844 })
    await until(async () => (await opts.getAttribute('data-settling')) === null, 'the options to settle after the move')
    expect(approvals).toEqual([])
  })

  it('a tap on a question the desk already answered is refused, the card says why, and nothing reaches the pane', async () => {
    const pane = await agent({ start: 'permission', default_reply: 'Finished the task.', work_ms: 1500 }, 'late')
    const p = await pairedPage()
    // A phone that has not caught up: this page's feed and card reads are held at the network
    // (nothing of the app is replaced) from the moment the desk answers.
    let hold = false
    let release: () => void = () => {}
    const released = new Promise<void>((r) => (release = r))
    await p.routeWebSocket(/\/events/, (ws) => {
      const server = ws.connectToServer()
      server.onMessage((m) => void (!hold && ws.send(m)))
      ws.onMessage((m) => server.send(m))
    })
    await p.route(/\/(agent-state|snapshot)/, async (route) => {
      if (hold) await released
      await route.continue().catch(() => {})
    })
    await open(p, pane)
    const no = p.locator('button.option', { hasText: 'No, and tell Claude' })
    await no.waitFor()
    await until(async () => !(await no.isDisabled()), 'the options to settle')
    const seq = (await stack.sim.request('agent.get', { target: pane })).agent.state_change_seq
    hold = true
    await stack.sim.request('pane.send_text', { pane_id: pane, text: '1' })
    await until(async () => (await stack.sim.request('agent.get', { target: pane })).agent.state_change_seq !== seq, 'the desk answer in herdr')
    await no.click()
    const state = p.locator('.answer-state')
    await until(async () => (await state.getAttribute('data-state')) === 'refused', 'the refusal on the card')
    expect(await state.textContent()).toMatch(/refused: (agent is (working|idle|done), not blocked|stale seq: approve carried \d+, agent now at \d+)$/)
    await shoot(p, 'option-stale-refused')
    hold = false
    release()
    await screenHas(pane, 'Finished the task.')
    expect((await screen(pane)).split('\n').filter((l) => /❯\s*\S/.test(l))).toEqual([])
    await p.close()
  })
})

describe('the composer', () => {
  it('sends with the question seq while one is shown, and shows the send as accepted', async () => {
    const pane = await agent({ start: 'permission', default_reply: 'Finished.', work_ms: 300 }, 'guarded')
    const sends: PostBodies['/send'][] = []
    page.on('request', (r) => void (r.url().endsWith('/send') && sends.push(r.postDataJSON())))
    await open(page, pane)
    await page.locator('button.option[data-default="true"]:not([disabled])').waitFor()
    const seq = (await stack.sim.request('agent.get', { target: pane })).agent.state_change_seq
    const box = page.getByLabel('Reply to the agent')
    await box.fill('3')
    await box.press('Enter')
    await page.locator('.send-state[data-state="accepted"]').waitFor()
    expect(sends.at(-1)).toEqual({ pane, text: '3\r', seq })
    await screenHas(pane, 'User rejected the tool use')
  })

  it('attaches a text file, a camera photo and a picked file as chips, removes one, and sends their paths with the text', async () => {
    const pane = await agent({ start: 'idle', default_reply: 'Got the files.', work_ms: 200 }, 'files')
    await open(page, pane)
    const box = page.getByLabel('Reply to the agent')
    await box.waitFor()
    expect(await page.locator('#attach-camera').getAttribute('capture')).toBe('environment')
    expect(await page.locator('#attach-camera').getAttribute('accept')).toBe('image/*')
    await page.locator('#attach-file').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\n\nship it\n') })
    await page.locator('#attach-camera').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: PNG })
    await page.locator('#attach-file').setInputFiles({ name: 'extra.txt', mimeType: 'text/plain', buffer: Buffer.from('not this one\n') })
    await until(async () => (await page.locator('.attachment[data-state="ready"]').count()) === 3, 'three uploads ready')
    expect(await page.locator('.attachment img.thumb').count()).toBe(1)
    expect(await page.locator('.attachment-name').allTextContents()).toEqual(['notes.md', 'photo.png', 'extra.txt'])
    await page.getByRole('button', { name: 'Remove extra.txt' }).click()
    // A refused file says why in words, never a status or a route.
    await page.locator('#attach-file').setInputFiles({ name: 'archive.zip', mimeType: 'application/zip', buffer: Buffer.from('PK\x05\x06' + '\0'.repeat(18), 'latin1') })
    const failed = page.locator('.attachment[data-state="failed"] .attachment-error')
    await failed.waitFor()
    expect(await failed.textContent()).toBe('this file is a zip archive; send pdf, docx, pptx, images or text')
    await page.getByRole('button', { name: 'Remove archive.zip' }).click()
    await box.fill('please read these')
    await shoot(page, 'composer-attachments')
    await box.press('Enter')
    await page.locator('.send-state[data-state="accepted"]').waitFor()
    await screenHas(pane, 'Got the files.')
    // The screen cuts the long line: the agent's own transcript holds what it received.
    const text = await until(() => sentToAgent('please read these'), 'the prompt in the transcript')
    expect(text).toMatch(/^please read these \/\S+\/repo\/\.herdr-bridge\/files\/\d{8}-\d{6}-[0-9a-f]{8}\.md \/\S+\/repo\/\.herdr-bridge\/images\/\d{8}-\d{6}-[0-9a-f]{8}\.png$/)
    expect(text).not.toContain('.txt')
    expect(await page.locator('.attachment').count()).toBe(0)
  })

  it('grows with its text', async () => {
    const box = page.getByLabel('Reply to the agent')
    const one = (await box.boundingBox())!.height
    await box.fill('a\nb\nc\nd\ne')
    expect((await box.boundingBox())!.height).toBeGreaterThan(one + 40)
    await box.fill('')
  })

  it('switches to a masked field for a password prompt and keeps the secret nowhere', async () => {
    const pane = await agent(
      {
        start: 'idle',
        history: [
          { role: 'user', text: 'Unlock the key' },
          { role: 'assistant', text: 'Enter the passphrase for the deploy key:' },
        ],
        default_reply: 'Unlocked.',
        work_ms: 200,
      },
      'secret',
    )
    await open(page, pane)
    const secret = page.getByLabel('Password for the prompt')
    await secret.waitFor()
    expect(await secret.getAttribute('type')).toBe('password')
    await secret.fill('hunter2-secret')
    await secret.press('Enter')
    await page.locator('.send-state[data-state="accepted"]').waitFor()
    expect(await page.locator('.send-state .send-what').last().textContent()).toBe('••••••')
    expect(await secret.inputValue()).toBe('')
    expect(await page.content()).not.toContain('hunter2-secret')
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toContain('hunter2-secret')
  })
})

describe('voice', () => {
  // Chromium headless has no working speech recognition: a stub stands in for the browser's
  // SpeechRecognition (the API boundary), and is deleted to show the control's absence.
  const STUB = `window.SpeechRecognition = class {
    start() { setTimeout(() => { this.onresult?.({ results: [[{ transcript: 'run the tests' }]] }); setTimeout(() => this.onend?.(), 50) }, 50) }
    stop() { this.onend?.() }
  }`
  const NONE = `delete window.SpeechRecognition; delete window.webkitSpeechRecognition; delete window.speechSynthesis`

  it('dictation fills an editable draft, and read aloud is offered, where the browser has them', async () => {
    const pane = await agent({ start: 'idle', history: [{ role: 'assistant', text: 'All done: the build is green.' }] }, 'voice')
    const p = await pairedPage(STUB)
    await open(p, pane)
    await p.getByRole('button', { name: 'Dictate' }).click()
    const box = p.getByLabel('Reply to the agent')
    await until(async () => (await box.inputValue()) === 'run the tests', 'the dictated text')
    await box.fill('run the tests please')
    expect(await box.inputValue()).toBe('run the tests please')
    expect(await p.evaluate(() => typeof speechSynthesis)).toBe('object')
    await p.getByRole('button', { name: 'Read aloud' }).waitFor()
    await shoot(p, 'composer-voice')
    await p.close()
  })

  it('neither control is shown where the browser has neither API', async () => {
    const pane = await agent({ start: 'idle', history: [{ role: 'assistant', text: 'Nothing to read.' }] }, 'novoice')
    const p = await pairedPage(NONE)
    await open(p, pane)
    await p.getByLabel('Reply to the agent').waitFor()
    await p.locator('#card-headline').waitFor()
    expect(await p.getByRole('button', { name: 'Dictate' }).count()).toBe(0)
    expect(await p.getByRole('button', { name: 'Read aloud' }).count()).toBe(0)
    await p.close()
  })
})

describe('the terminal on a phone', () => {
  it('reads a 120×40 TUI at 11 px or more without resizing the pane; the key bar is one row', async () => {
    const pane = await agent(
      {
        start: 'idle',
        history: [
          { role: 'user', text: 'Summarise the release' },
          { role: 'assistant', text: 'The release notes list forty fixes, the new readable terminal and the answer guard for stale taps on a phone.' },
        ],
      },
      'tui',
    )
    const size = async () => {
      const snap = await stack.sim.request('session.snapshot', {})
      for (const l of snap.snapshot.layouts) for (const x of l.panes) if (x.pane_id === pane) return `${x.rect.width}×${x.rect.height}`
      return ''
    }
    expect(await size()).toBe('120×40')
    await open(page, pane, 'terminal')
    await page.locator('.term-status', { hasText: 'watching' }).waitFor()
    await page.getByRole('button', { name: 'Readable' }).click()
    const read = page.getByLabel('Terminal text')
    await until(async () => (await read.textContent())?.includes('? for shortcuts'), 'the pane text in the readable view')
    const m = await read.evaluate((el) => ({
      font: parseFloat(getComputedStyle(el).fontSize),
      sideways: el.scrollWidth > el.clientWidth + 1,
      right: el.getBoundingClientRect().right,
      text: el.textContent ?? '',
    }))
    expect(m.font).toBeGreaterThanOrEqual(11)
    expect(m.sideways).toBe(false)
    expect(m.right).toBeLessThanOrEqual(390)
    // The long answer reflows to the phone's width instead of running off the side.
    expect(m.text).toContain('the answer guard for stale taps on a phone.')
    // One line of the pane is one line here: the prompt and the answer each start their own.
    const lines = m.text.split('\n').map((l) => l.trim())
    expect(lines).toContain('> Summarise the release')
    expect(lines.some((l) => l.startsWith('⏺ The release notes list forty fixes'))).toBe(true)
    await shoot(page, 'terminal-readable')
    // Larger text on request, sideways scrolling only on request.
    await page.getByRole('button', { name: 'Larger text' }).click()
    expect(await read.evaluate((el) => parseFloat(getComputedStyle(el).fontSize))).toBe(m.font + 1)
    await page.getByRole('button', { name: '↔' }).click()
    expect(await read.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('pre')
    await page.getByRole('button', { name: '↔' }).click()
    // The key bar: one row, inside the viewport, scrolling sideways, with the keys an agent needs.
    const keys = await page.locator('.keybar .key').evaluateAll((els) => els.map((e) => ({ label: e.textContent, top: e.getBoundingClientRect().top })))
    expect(keys.map((k) => k.label)).toEqual(['Esc', '⏎', 'Tab', '⇧Tab', '↑', '↓', '←', '→', '^C', '^D', '1', '2', '3', '4', '5'])
    expect(new Set(keys.map((k) => Math.round(k.top))).size).toBe(1)
    const bar = await page
      .locator('.keybar')
      .evaluate((el) => ({ right: el.getBoundingClientRect().right, bottom: el.getBoundingClientRect().bottom, scroll: getComputedStyle(el).overflowX }))
    expect(bar.right).toBeLessThanOrEqual(390.5)
    expect(bar.bottom).toBeLessThanOrEqual(844.5)
    expect(bar.scroll).toBe('auto')
    // herdr still sees the desk's pane at its own size.
    expect(await size()).toBe('120×40')
  })
})
