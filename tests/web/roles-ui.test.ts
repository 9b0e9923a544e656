// What the web app offers depends on who asks and whom it asks: a viewer device watches without
// write controls, and a bridge older than API 7 (which ignores /approve's `option`) gets only the
// default option. Headless Chromium against the real bridge and the herdr simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import { ensureBuilt, launch, type Browser } from './browser.ts'
import { shoot as shootAt, shotsDir } from './rig.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

let stack: Stack
let browser: Browser
let page: Page
let watched: string
let asked: string
// The watch-only views' screenshots (docs/screenshots/viewer-*.png with WEB_SCREENSHOTS=1).
const shots = shotsDir()
const shoot = (name: string) => shootAt(page, shots.dir, name)

const snapshot = async () => ((await (await stack.bridge.request('/snapshot')).json()) as GetResponses['/snapshot']).result.snapshot
const screen = async (pane: string) => (await stack.sim.request('pane.read', { pane_id: pane, source: 'visible', format: 'text' })).read.text as string

async function pairAs(role: string, name: string): Promise<string> {
  const { code } = await (await stack.bridge.request('/admin/pairing', { method: 'POST', json: { role } })).json()
  return (await (await stack.bridge.request('/pair', { method: 'POST', token: null, json: { code, device_name: name } })).json()).bearer
}

/** This browser as the device with that bearer, then the app loaded afresh at `hash`. */
async function useDevice(bearer: string, hash: string) {
  await page.goto(stack.bridge.url + '/#/')
  await page.evaluate(
    ([url, bearer]) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify([{ key: 'b1', url, bearer, name: 'test bridge', server_id: '', device_id: '' }])),
    [stack.bridge.url, bearer],
  )
  await page.goto('about:blank')
  await page.goto(`${stack.bridge.url}/${hash}`)
}

const card = (pane: string) => `#/agent/b1/${encodeURIComponent(pane)}/card`

beforeAll(async () => {
  ensureBuilt()
  stack = await startStack()
  const agent = async (label: string) =>
    (await stack.sim.request('sim.create_agent_pane', { kind: 'claude', cwd: stack.home, label, script: { start: 'permission', default_reply: 'All tests pass.', work_ms: 300 } }))
      .pane.pane_id as string
  watched = await agent('watched')
  asked = await agent('asked')
  await until(async () => (await snapshot()).agents.filter((a) => a.agent_status === 'blocked').length === 2, 'both agents blocked')
  browser = await launch()
  page = browser.page
})

afterAll(async () => {
  await browser?.close()
  await stack?.close()
  shots.done()
})

describe('web app by role and bridge level', () => {
  it('shows a viewer the question and its options without any write control, and keeps it watching', async () => {
    await useDevice(await pairAs('viewer', 'viewer phone'), card(watched))
    await page.locator('.watch-only', { hasText: 'Watch-only device' }).waitFor()
    await page.locator('.options-read li').first().waitFor()
    expect(await page.locator('#card-headline').textContent()).toBe('Do you want to proceed?')
    expect(await page.locator('.options-read li').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('Yes'), expect.stringContaining('No, and tell Claude')]),
    )
    expect(await page.locator('button.option').count()).toBe(0)
    expect(await page.locator('form.reply').count()).toBe(0)
    for (const name of ['Restart', 'Stop', 'Close pane', 'Cycle mode']) expect([name, await page.getByRole('button', { name, exact: true }).count()]).toEqual([name, 0])
    // Mute is the viewer's own alert setting: still offered, once (drawn when this device's mutes are read).
    await page.locator('.mute-menu').waitFor()
    expect(await page.locator('.mute-menu').count()).toBe(1)
    await shoot('viewer-card')
    await page.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(watched)}/transcript`)
    await page.locator('.agent-head').waitFor()
    expect(await page.locator('form.reply').count()).toBe(0)
    // The terminal: watched, not taken.
    await page.goto(`${stack.bridge.url}/#/agent/b1/${encodeURIComponent(watched)}/terminal`)
    await page.locator('.term-status', { hasText: 'watching' }).waitFor()
    expect(await page.getByRole('button', { name: 'Take control' }).count()).toBe(0)
    // Nor a key bar to type with.
    expect(await page.getByRole('toolbar', { name: 'Special keys' }).count()).toBe(0)
    await page.locator('.term .xterm-rows', { hasText: 'Do you want to proceed?' }).waitFor()
    await shoot('viewer-terminal')
    await page.goto(`${stack.bridge.url}/${card(watched)}`)
    await page.locator('.options-read li').first().waitFor()
    // It watches: answered elsewhere, the card moves on under the viewer's eyes.
    const seq = (await snapshot()).agents.find((a) => a.pane_id === watched)!.state_change_seq
    const r = await (await stack.bridge.request('/approve', { method: 'POST', json: { agent: watched, seq } })).json()
    expect(r.applied).toBe(true)
    await until(async () => (await screen(watched)).includes('All tests pass.'), 'the agent to move on')
    await until(async () => (await page.locator('.options-read').count()) === 0, "the viewer's card to drop the question")
    expect(await page.locator('.watch-only').count()).toBe(1)
  })

  it('lists spaces to a viewer without their actions, and offers it no Start form', async () => {
    await page.goto(`${stack.bridge.url}/#/spaces`)
    await page.locator('.spaces-view .watch-only', { hasText: 'Watch-only device' }).waitFor()
    await page.locator(`.pane-row[data-pane="${asked}"]`).waitFor()
    for (const name of ['New space', 'New tab', 'New worktree', 'Close space', 'New pane', 'Close tab', 'Close'])
      expect([name, await page.getByRole('button', { name, exact: true }).count()]).toEqual([name, 0])
    await shoot('viewer-spaces')
    await page.goto(`${stack.bridge.url}/#/start`)
    await page.locator('.watch-only', { hasText: 'it cannot start agents' }).waitFor()
    expect(await page.getByRole('button', { name: 'Start', exact: true }).count()).toBe(0)
    await shoot('viewer-start')
    await page.goto(`${stack.bridge.url}/#/devices`)
    await page.locator('.me[data-role="viewer"]').waitFor()
    await until(async () => (await page.getByRole('button', { name: 'Send test push' }).count()) === 0, 'no test push for a viewer')
    await shoot('viewer-devices')
  })

  it('offers only the default option while the bridge reports an API level below 7, then every option', async () => {
    const bearer = await pairAs('default', 'phone')
    // The bridge under test is current: an older one is played by answering /info as it would.
    await page.route(`${stack.bridge.url}/info`, (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ server_id: 'old', server_name: 'old', version: 6 }) }),
    )
    await useDevice(bearer, card(asked))
    const note = page.locator('.old-bridge', { hasText: 'Update this bridge to answer other options' })
    await note.waitFor()
    await until(async () => (await page.locator('.options[data-settling]').count()) === 0, 'the options to settle')
    expect(await page.locator('button.option[data-default="true"]').isDisabled()).toBe(false)
    const others = page.locator('button.option:not([data-default="true"])')
    expect(await others.count()).toBeGreaterThan(0)
    for (const b of await others.all()) expect(await b.isDisabled()).toBe(true)
    await page.unroute(`${stack.bridge.url}/info`)
    await page.reload()
    await page.locator('button.option').first().waitFor()
    await until(async () => (await page.locator('.options[data-settling]').count()) === 0, 'the options to settle')
    for (const b of await page.locator('button.option').all()) expect(await b.isDisabled()).toBe(false)
    expect(await note.count()).toBe(0)
    expect(await page.locator('.watch-only').count()).toBe(0)
  })
})
