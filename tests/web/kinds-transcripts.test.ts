// codex and opencode panes in the web client: headless Chromium against the real bridge and the
// herdr simulator, with a codex rollout and an opencode store written as those agents write them.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { startStack, type Stack } from '../harness/stack.ts'
import { ensureBuilt, launch, type Browser } from './browser.ts'
import { assistantText, sampleSession, writeRollout } from '../kinds/codex-fixture.ts'
import { OpencodeStore } from '../kinds/opencode-fixture.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'

let stack: Stack
let browser: Browser
let page: Page
let codexPane: string
let opencodePane: string
let hermesPane: string
let rollout: string
const CODEX_ID = '0199b2d4-1111-7000-8000-0000000000c1'

async function agentPane(kind: string, cwd: string, sessionId?: string): Promise<string> {
  const pane = (await stack.sim.request('workspace.create', { cwd, label: kind })).root_pane.pane_id as string
  await reportBusyAgent(stack.sim, pane, { source: `herdr:${kind}`, agent: kind, state: 'idle', ...(sessionId ? { agent_session_id: sessionId } : {}) })
  return pane
}

async function openTranscript(pane: string): Promise<void> {
  await page.goto(stack.bridge.url + '/')
  await page.locator(`.agent-row[data-pane="${pane}"]`).click()
  await page.getByRole('link', { name: 'Transcript' }).click()
}

beforeAll(async () => {
  ensureBuilt()
  stack = await startStack()
  const cwd = join(stack.home, 'proj')
  mkdirSync(cwd, { recursive: true })
  rollout = writeRollout(join(stack.home, '.codex'), CODEX_ID, sampleSession(CODEX_ID, cwd))
  const store = new OpencodeStore(join(stack.home, '.local', 'share', 'opencode', 'storage'), 'ses_web1')
  store.session(cwd)
  store.sampleTurn(0)
  codexPane = await agentPane('codex', cwd, CODEX_ID)
  opencodePane = await agentPane('opencode', cwd, 'ses_web1')
  hermesPane = await agentPane('hermes', cwd)
  browser = await launch()
  page = browser.page
  await page.goto(stack.bridge.url + '/')
  await page.getByRole('heading', { name: 'Pair with a bridge' }).waitFor()
  const { code } = await (await stack.bridge.request('/admin/pairing', { method: 'POST' })).json()
  await page.getByLabel('Pairing code').fill(code)
  await page.getByLabel("This device's name").fill('kinds browser')
  await page.getByRole('button', { name: 'Pair', exact: true }).click()
  await page.locator('section.bridge .conn-live').waitFor()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await stack?.close()
})

describe('transcripts of codex and opencode in the web client', () => {
  it('a codex pane: the conversation, the shell call with its output, the patch, then a live reply', async () => {
    await openTranscript(codexPane)
    const log = page.getByRole('log')
    await log.locator('.msg.user', { hasText: 'Raise the cache TTL to a minute' }).waitFor()
    await log.locator('.msg.assistant', { hasText: 'The cache TTL is now 60 seconds.' }).waitFor()
    // What codex injects (environment, permissions) is not shown.
    expect(await log.locator('.msg', { hasText: 'environment_context' }).count()).toBe(0)
    const shell = log.locator('details.msg.tool', { hasText: 'rg -n ttl src' })
    await shell.locator('summary').click()
    await shell.locator('pre.cmd', { hasText: '$ rg -n ttl src' }).waitFor()
    await shell.locator('pre.output', { hasText: 'src/cache.ts:1:const ttl = 10' }).waitFor()
    await log.locator('details.msg.tool .tool-name', { hasText: 'apply_patch' }).waitFor()
    appendFileSync(rollout, assistantText(20, 'Also updated the docs.') + '\n')
    await log.locator('.msg.assistant', { hasText: 'Also updated the docs.' }).waitFor()
  })

  it('an opencode pane: the prompt, reasoning, the bash call and the edit from its store', async () => {
    await openTranscript(opencodePane)
    const log = page.getByRole('log')
    await log.locator('.msg.user', { hasText: 'Raise the cache TTL' }).waitFor()
    await log.locator('.msg.assistant', { hasText: 'The TTL is now 60 seconds.' }).waitFor()
    await log.locator('details.msg.thinking', { hasText: 'Thinking' }).waitFor()
    const bash = log.locator('details.msg.tool', { hasText: 'bash' })
    await bash.locator('summary').click()
    await bash.locator('pre.output', { hasText: 'src/cache.ts:1:const ttl = 10' }).waitFor()
    await log.locator('details.msg.tool .tool-name', { hasText: 'edit' }).waitFor()
    expect(await log.locator('.msg', { hasText: 'system-reminder' }).count()).toBe(0)
  })

  it('a kind without a transcript reader has no transcript tab (learned from GET /agent-kinds)', async () => {
    await page.goto(stack.bridge.url + '/')
    await page.locator(`.agent-row[data-pane="${hermesPane}"]`).click()
    await page.getByRole('link', { name: 'Terminal' }).waitFor()
    await page.getByRole('link', { name: 'Agent' }).waitFor()
    await vi.waitFor(async () => expect(await page.getByRole('link', { name: 'Transcript' }).count()).toBe(0), { timeout: 10_000 })
  })
})
