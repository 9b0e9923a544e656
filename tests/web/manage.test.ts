// Running agents from the phone, end to end: headless Chromium at 390 px against the real bridge
// and the herdr simulator (real PTYs, fake claude agents on the bridge's PATH, real git). Each
// test acts through the UI and checks what herdr, git or the bridge saw. The tests run in order
// and build on each other: start in a new worktree → answer → review → delete its branch, then
// lifecycle, spaces, the other views, devices and roles, alerts, triage and lost access.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { startSim } from '../harness/sim.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import { ensureBuilt, launch, type Browser } from './browser.ts'
import { paneHas, shoot as shootAt, shotsDir } from './rig.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'
import type { PaneProcessInfoProcess, WorkspaceInfo } from '../../lib/herdr/api.ts'

let home: string
let sim: Awaited<ReturnType<typeof startSim>>
let bridge: TestBridge
// The bridge's webhook channel posts here: what a test push sent.
let hookServer: Server
const hooks: Record<string, unknown>[] = []
let browser: Browser
let page: Page
let repo: string
let owner: { id: string; bearer: string }
let worktreePane: string
let worktreePath: string
const shots = shotsDir()

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' }).trim()
const screenHas = (pane: string, needle: string) => paneHas(sim, pane, needle, 60_000)
const snapshot = async () => ((await (await bridge.request('/snapshot')).json()) as GetResponses['/snapshot']).result.snapshot
const go = async (hash: string) => {
  await page.goto(`${bridge.url}/${hash}`)
}

const shoot = (name: string) => shootAt(page, shots.dir, name)

/**
 * Taps the card's default option until the card takes it. A tap that lands as the options move
 * (the card's text above them changed a moment after they appeared) is dropped and sends nothing,
 * by design, as on a phone: the user taps again. Once one is taken the card shows its outcome.
 */
async function tapDefault(): Promise<void> {
  const yes = page.locator('button.option[data-default="true"]')
  await yes.waitFor()
  const taken = page.locator('.answer-state')
  await until(
    async () => {
      if (!(await taken.count()) && (await yes.isEnabled().catch(() => false))) await yes.click({ timeout: 5000 }).catch(() => {})
      return (await taken.count()) > 0
    },
    'a tap on the default option taken',
    60_000,
    250,
  )
  await page.locator('.answer-state[data-state="accepted"]').waitFor()
}

async function pairAs(role: string, name: string) {
  const { code } = await (await bridge.request('/admin/pairing', { method: 'POST', json: { role } })).json()
  return (await (await bridge.request('/pair', { method: 'POST', token: null, json: { code, device_name: name } })).json()) as { id: string; bearer: string }
}

/** This browser as the given device (what pairing stores), then the app loaded afresh. */
async function useDevice(bearer: string, hash = '#/') {
  await page.goto(bridge.url + '/#/')
  await page.evaluate(
    ([url, bearer]) => localStorage.setItem('herdr-bridge.bridges.v1', JSON.stringify([{ key: 'b1', url, bearer, name: 'test bridge', server_id: '', device_id: '' }])),
    [bridge.url, bearer],
  )
  await page.goto('about:blank')
  await go(hash)
}

beforeAll(async () => {
  ensureBuilt()
  home = mkdtempSync(join(tmpdir(), 'web-manage-'))
  // Agents started from the app run this script: the first prompt asks for a permission.
  const script = join(home, 'agent-script.json')
  writeFileSync(
    script,
    JSON.stringify({
      work_ms: 200,
      turns: [{ tool: { name: 'Write', input: { file_path: 'tests.txt' }, question: 'Create tests.txt?' }, reply: 'Tests written.' }],
      default_reply: 'Done.',
    }),
  )
  sim = await startSim({ home, testMode: true, env: { FAKE_AGENT_SCRIPT: script } })
  hookServer = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      // The bridge's /ports probes every listening port with a GET: only the hook's POSTs count.
      if (req.method === 'POST' && req.url === '/hook') hooks.push(JSON.parse(body))
      res.end('ok')
    })
  })
  await new Promise<void>((res) => hookServer.listen(0, '127.0.0.1', res))
  const hookUrl = `http://127.0.0.1:${(hookServer.address() as { port: number }).port}/hook`
  bridge = await startBridge({ home, env: { PATH: sim.clientEnv().PATH!, BRIDGE_WEBHOOK_URL: hookUrl, BRIDGE_WEBHOOK_SECRET: 'manage-test' } })
  repo = join(home, 'repo')
  mkdirSync(repo)
  git(repo, 'init', '-q', '-b', 'main')
  writeFileSync(join(repo, 'README.md'), 'hello\n')
  git(repo, 'add', '.')
  git(repo, 'commit', '-q', '-m', 'init')
  await sim.request('workspace.create', { cwd: repo, label: 'repo' })
  owner = await pairAs('owner', 'owner phone')
  browser = await launch()
  page = browser.page
  await useDevice(owner.bearer)
})

afterAll(async () => {
  await browser?.close()
  await bridge?.close()
  await sim?.stop()
  await new Promise((res) => (hookServer ? hookServer.close(res) : res(undefined)))
  rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
  shots.done()
})

describe('running agents from the phone', () => {
  it("starts claude in a new worktree with the kind's options and a first prompt, and it shows up at once", async () => {
    await go('#/start')
    await page.getByLabel('Agent kind').selectOption('claude')
    // claude's start options, as the bridge lists them (GET /agent-kinds).
    await page.getByLabel('Model', { exact: true }).fill('sonnet')
    await page.getByLabel('Permission mode', { exact: true }).selectOption('plan')
    await page.getByLabel('A new worktree (its own branch)').check()
    await page.getByLabel('Space', { exact: true }).selectOption({ label: 'repo' })
    await page.getByLabel('Branch', { exact: true }).fill('feat-tests')
    await page.getByLabel('First prompt', { exact: true }).fill('Add tests')
    // The shot shows the form's top: the kind and its options.
    await page.evaluate(() => ((document.activeElement as HTMLElement | null)?.blur(), scrollTo(0, 0)))
    await shoot('start')
    await page.getByRole('button', { name: 'Start', exact: true }).click()
    const result = page.locator('.result.ok', { hasText: 'Started claude' })
    await result.waitFor({ timeout: 150_000 })
    worktreePane = /in (\S+?)(,|$)/.exec((await result.textContent())!)![1]
    // herdr made the worktree on that branch, and the agent got the prompt.
    const wt = git(repo, 'worktree', 'list', '--porcelain')
    expect(wt).toContain('branch refs/heads/feat-tests')
    worktreePath = /worktree (\S+)\nHEAD \S+\nbranch refs\/heads\/feat-tests/.exec(wt)![1]
    const agent = (await sim.request('agent.get', { target: worktreePane })).agent
    expect([agent.agent, agent.cwd]).toEqual(['claude', worktreePath])
    // What herdr launched in the pane: claude with the options as its arguments.
    const launched = (await sim.request('pane.process_info', { pane_id: worktreePane })).process_info.foreground_processes.find((p: PaneProcessInfoProcess) =>
      p.argv?.includes('--kind'),
    )
    expect(launched.argv.slice(launched.argv.indexOf('--kind'))).toEqual(['--kind', 'claude', '--model', 'sonnet', '--permission-mode', 'plan'])
    await screenHas(worktreePane, 'Add tests')
    await page.getByRole('link', { name: 'Open claude' }).click()
    await page.locator('#card-headline').waitFor()
  })

  it('answers its question from the card', async () => {
    await tapDefault()
    await screenHas(worktreePane, 'Tests written.')
  })

  it('reviews its change in the diff', async () => {
    writeFileSync(join(worktreePath, 'tests.txt'), 'test one\n')
    git(worktreePath, 'add', 'tests.txt')
    git(worktreePath, 'commit', '-q', '-m', 'tests')
    writeFileSync(join(worktreePath, 'README.md'), 'hello\nmore\n')
    await page.getByRole('link', { name: 'Changes' }).click()
    const file = page.locator('details.file', { hasText: 'README.md' })
    await file.waitFor()
    expect(await file.locator('.ln.add .code').allTextContents()).toEqual(['more'])
  })

  it('deletes its unmerged branch only after a second confirmation that says what is lost', async () => {
    git(worktreePath, 'checkout', '-q', '--', 'README.md')
    await go('#/spaces')
    const space = page.locator('section.space', { has: page.locator(`[data-pane="${worktreePane}"]`) })
    await space.getByRole('button', { name: 'Branch…' }).click()
    await space.locator('.branch-line', { hasText: '⎇ feat-tests' }).waitFor()
    expect(await space.locator('.branch-line .warn').textContent()).toBe('1 commit not merged into main')
    await shoot('spaces')
    await space.getByRole('button', { name: 'Delete branch…' }).click()
    await space.getByRole('button', { name: 'Delete unmerged branch' }).click()
    const last = space.locator('.confirm-text')
    expect(await last.textContent()).toBe(
      'Last check: 1 commit on feat-tests exist nowhere else and will be lost, with the worktree folder and any uncommitted change in it. Delete?',
    )
    expect(git(repo, 'branch', '--list', 'feat-tests')).toContain('feat-tests')
    await space.getByRole('button', { name: 'Delete and lose them' }).click()
    // The space goes with its worktree, so the outcome stays in the toast.
    await page.locator('.toast', { hasText: 'Deleted branch feat-tests (1 unmerged commit dropped)' }).waitFor({ state: 'attached' })
    expect(git(repo, 'branch', '--list', 'feat-tests')).toBe('')
    expect(git(repo, 'worktree', 'list')).not.toContain(worktreePath)
    await until(async () => !(await snapshot()).panes.some((p) => p.pane_id === worktreePane), 'the worktree space gone from herdr')
  })

  it('stops an agent after asking, starts one again in the idle shell, and restarts it', async () => {
    const pane = (await sim.request('sim.create_agent_pane', { kind: 'claude', cwd: repo, label: 'chat', script: { start: 'idle', default_reply: 'ok' } })).pane.pane_id as string
    await go(`#/agent/b1/${encodeURIComponent(pane)}/card`)
    await page.getByRole('button', { name: 'Stop', exact: true }).click()
    expect(await page.locator('.confirm-text').textContent()).toBe('Stop claude? The pane stays open as a shell.')
    expect((await sim.request('agent.get', { target: pane })).agent?.agent).toBe('claude')
    await page.locator('.confirm').getByRole('button', { name: 'Stop' }).click()
    // The agent leaves, and its actions with it: the outcome is the toast's.
    await page.locator('.toast', { hasText: `Stopped claude in ${pane}` }).waitFor({ timeout: 100_000 })
    await until(async () => !(await snapshot()).agents.some((a) => a.pane_id === pane), 'the agent gone from the snapshot')
    // The pane stays, as a plain shell that offers to start an agent.
    await page.getByRole('link', { name: 'Start agent here' }).click()
    expect(await page.getByLabel('Shell pane', { exact: true }).inputValue()).toBe(pane)
    await page.getByLabel('Agent kind').selectOption('claude')
    await page.getByRole('button', { name: 'Start', exact: true }).click()
    await page.locator('.result.ok', { hasText: `Started claude` }).waitFor({ timeout: 100_000 })
    expect((await sim.request('agent.get', { target: pane })).agent?.agent).toBe('claude')
    await go(`#/agent/b1/${encodeURIComponent(pane)}/card`)
    await page.getByRole('button', { name: 'Restart', exact: true }).click()
    await page.locator('.confirm').getByRole('button', { name: 'Restart' }).click()
    // The agent is briefly gone while it restarts, and its actions with it: the outcome is the toast's.
    await page.locator('.toast', { hasText: 'Restarted claude' }).waitFor({ timeout: 100_000 })
    expect((await sim.request('agent.get', { target: pane })).agent?.agent).toBe('claude')
  })

  it('opens and closes tabs and panes in a space', async () => {
    const tabsOf = async () => (await snapshot()).tabs.filter((t) => t.workspace_id === 'w1').map((t) => t.tab_id as string)
    const before = await tabsOf()
    await go('#/spaces')
    const space = page.locator('section.space[data-space="w1"]')
    await space.getByRole('button', { name: 'New tab' }).click()
    const opened = await until(async () => (await tabsOf()).find((t: string) => !before.includes(t)), 'a new tab in herdr')
    const tab = space.locator(`.tabbox[data-tab="${opened}"]`)
    await tab.getByRole('button', { name: 'New pane' }).click()
    const panesIn = async () => (await snapshot()).panes.filter((p) => p.tab_id === opened).map((p) => p.pane_id as string)
    await until(async () => (await panesIn()).length === 2, 'a second pane in the new tab')
    const second = (await panesIn())[1]
    await tab.locator(`.pane-row[data-pane="${second}"]`).getByRole('button', { name: 'Close' }).click()
    await tab.locator(`.pane-row[data-pane="${second}"] .confirm`).getByRole('button', { name: 'Close' }).click()
    await until(async () => (await panesIn()).length === 1, 'the pane closed in herdr')
    await tab.getByRole('button', { name: 'Close tab' }).click()
    await tab.locator('.confirm').getByRole('button', { name: 'Close tab' }).click()
    await until(async () => !(await tabsOf()).includes(opened), 'the tab closed in herdr')
  })

  it('opens a space and a worktree, deletes a merged branch after one confirmation, and closes a space', async () => {
    // The snapshot's spaces are herdr's, each with the session it came from.
    const spaces = async () => (await snapshot()).workspaces as (WorkspaceInfo & { session: string })[]
    const before = (await spaces()).map((w) => w.workspace_id)
    await go('#/spaces')
    await page.locator('.view-head').getByRole('button', { name: 'New space' }).click()
    const opened = await until(async () => (await spaces()).find((w) => !before.includes(w.workspace_id))?.workspace_id as string | undefined, 'a new space in herdr')
    // A worktree from the repository's space: a new branch with nothing of its own, so merged.
    const repoSpace = (await spaces()).find((w) => w.label === 'repo')!.workspace_id
    const branchesBefore = git(repo, 'branch', '--list')
    await page.locator(`section.space[data-space="${repoSpace}"]`).getByRole('button', { name: 'New worktree' }).click()
    const made = await until(
      async () => (await spaces()).find((w) => !before.includes(w.workspace_id) && w.workspace_id !== opened && w.worktree?.is_linked_worktree),
      'a worktree space in herdr',
    )
    const branch = git(made.worktree!.checkout_path, 'rev-parse', '--abbrev-ref', 'HEAD')
    expect(branchesBefore).not.toContain(branch)
    expect(git(repo, 'branch', '--list', branch)).toContain(branch)
    const wtSpace = page.locator(`section.space[data-space="${made.workspace_id}"]`)
    await wtSpace.getByRole('button', { name: 'Branch…' }).click()
    expect(await wtSpace.locator('.branch-line .ok').textContent()).toBe('merged into main')
    await wtSpace.getByRole('button', { name: 'Remove worktree and delete branch' }).click()
    expect(await wtSpace.locator('.confirm-text').textContent()).toBe(`Delete ${branch}? It is merged into main; nothing is lost. The worktree folder goes too.`)
    await wtSpace.locator('.confirm').getByRole('button', { name: 'Remove worktree and delete branch' }).click()
    await page.locator('.toast', { hasText: `Deleted branch ${branch} (merged into main)` }).waitFor({ state: 'attached' })
    expect(git(repo, 'branch', '--list', branch)).toBe('')
    expect(git(repo, 'worktree', 'list')).not.toContain(made.worktree!.checkout_path)
    // Close space: every tab of it, after one confirmation.
    const space = page.locator(`section.space[data-space="${opened}"]`)
    await space.getByRole('button', { name: 'Close space' }).click()
    await space.locator('.confirm').getByRole('button', { name: 'Close space' }).click()
    await until(async () => !(await spaces()).some((w) => w.workspace_id === opened), 'the space closed in herdr')
  })

  it('closes a pane from the agent view after asking', async () => {
    const pane = (await sim.request('sim.create_agent_pane', { kind: 'claude', cwd: repo, label: 'closing', script: { start: 'idle', default_reply: 'ok' } })).pane
      .pane_id as string
    await go(`#/agent/b1/${encodeURIComponent(pane)}/card`)
    // Once the snapshot shows the agent (its Restart appears), Close pane names it.
    await page.getByRole('button', { name: 'Restart', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Close pane', exact: true }).click()
    expect(await page.locator('.confirm-text').textContent()).toBe('Close this pane and the claude agent in it?')
    expect((await snapshot()).panes.some((p) => p.pane_id === pane)).toBe(true)
    await page.locator('.confirm').getByRole('button', { name: 'Close pane' }).click()
    await until(async () => !(await snapshot()).panes.some((p) => p.pane_id === pane), 'the pane closed in herdr')
    await until(async () => new URL(page.url()).hash === '#/', 'back at the inbox')
  })

  it('lists plain shells in their own section, each opening its terminal', async () => {
    const shell = (await sim.request('workspace.create', { cwd: home, label: 'shell' })).root_pane.pane_id as string
    await go('#/')
    const row = page.locator(`.shell-row[data-pane="${shell}"]`)
    await row.waitFor()
    await row.click()
    await page.locator('.term-status').waitFor()
    expect(page.url()).toContain(`/terminal`)
  })

  it('starts an agent in a folder chosen by browsing the host, in a new space', async () => {
    const web = join(repo, 'packages', 'web')
    mkdirSync(web, { recursive: true })
    mkdirSync(join(repo, 'packages', 'api'))
    const spacesBefore = (await snapshot()).workspaces.map((w) => w.workspace_id)
    await go('#/start')
    await page.getByLabel('Agent kind').selectOption('claude')
    await page.getByLabel('A folder on the host (a new space)').check()
    const picker = page.getByRole('group', { name: 'Folder on the host' })
    const at = (path: string) => until(async () => (await picker.locator('.browse-path code').textContent()) === path, `${path} picked`)
    // Down two folders (each a GET /browse), up one, and down again.
    await picker.getByRole('button', { name: /repo/ }).first().click()
    await at(repo)
    await picker.getByRole('button', { name: '📁 packages' }).click()
    await at(join(repo, 'packages'))
    expect(await picker.locator('.folder').allTextContents()).toEqual(['📁 api', '📁 web'])
    await picker.getByRole('button', { name: '📁 web' }).click()
    await at(web)
    await picker.getByRole('button', { name: 'Up one folder' }).click()
    await at(join(repo, 'packages'))
    await picker.getByRole('button', { name: '📁 web' }).click()
    await at(web)
    await page.getByRole('button', { name: 'Start', exact: true }).click()
    const result = page.locator('.result.ok', { hasText: 'Started claude' })
    await result.waitFor({ timeout: 100_000 })
    const pane = /in (\S+?)(,|$)/.exec((await result.textContent())!)![1]
    // herdr opened a space in that folder, and claude runs there.
    expect((await sim.request('agent.get', { target: pane })).agent).toMatchObject({ agent: 'claude', cwd: web })
    const opened = (await snapshot()).workspaces.filter((w) => !spacesBefore.includes(w.workspace_id))
    expect(opened.map((w) => w.workspace_id)).toEqual([(await sim.request('pane.get', { pane_id: pane })).pane.workspace_id])
  })

  it('shows the timeline, usage, an agent’s activity and its command palette', async () => {
    const tl = (await (await bridge.request('/timeline?limit=100')).json()).entries
    await go('#/timeline')
    await page.locator('.tl-row').first().waitFor()
    expect(await page.locator('.tl-row').count()).toBe(tl.length)
    expect(await page.locator('.tl-row').first().getAttribute('data-pane')).toBe(tl[0].pane)
    const usage = await (await bridge.request('/usage')).json()
    await go('#/usage')
    await page.getByRole('heading', { name: 'Usage' }).waitFor()
    const kinds = Object.keys(usage).filter((k) => k !== 'fetched_at')
    await until(async () => (await page.locator('section.usage').count()) === kinds.length, 'one section per kind')
    expect(await page.locator('section.usage').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')))).toEqual(kinds)
    await shoot('usage')
    const pane = (await snapshot()).agents.find((a) => a.agent === 'claude')!.pane_id
    await go(`#/agent/b1/${encodeURIComponent(pane)}/activity`)
    await page.getByRole('list', { name: 'Timeline' }).or(page.getByText('No status changes recorded yet.')).first().waitFor()
    await shoot('activity')
    const cmds = ((await (await bridge.request(`/commands?pane=${encodeURIComponent(pane)}`)).json()) as GetResponses['/commands']).commands
    await go(`#/agent/b1/${encodeURIComponent(pane)}/commands`)
    await page.locator('.command').first().waitFor()
    expect(await page.locator('.command').count()).toBe(cmds.length)
    await shoot('commands')
    const plain = cmds.find((c) => !c.argument_hint)
    const name = plain!.name.replace(/^\//, '')
    await page.locator(`.command[data-command="${name}"]`).getByRole('button', { name: 'Run' }).click()
    await page.locator(`.command[data-command="${name}"] .result.ok`).waitFor()
    await screenHas(pane, `/${name}`)
  })

  it('links a dev server from /ports while it listens, and the link reaches it', async () => {
    // A real node http server in a pane of its own, on every interface (a loopback-only one gets no link).
    const port = await new Promise<number>((res) => {
      const probe = createNetServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => res(port))
      })
    })
    const serve = `node -e "require('http').createServer((q, s) => s.end('dev server up')).listen(${port}, '0.0.0.0')"`
    const opened = await bridge.request('/pane/new', { method: 'POST', token: owner.bearer, json: { workspace_id: 'w1', command: serve } })
    const devPane = (await opened.json()).pane_id as string
    // Listed once the scan finds it, and tied to its pane once it sees the process tree.
    const listed = await until(
      async () => ((await (await bridge.request('/ports')).json()) as GetResponses['/ports']).ports.find((p) => p.port === port && p.pane === devPane),
      `port ${port} in /ports, from ${devPane}`,
      60_000,
    )
    expect(listed).toMatchObject({ port, bind: '*', loopback: false, proc: 'node' })
    await go('#/timeline')
    const link = page.getByRole('list', { name: 'Dev servers' }).getByRole('link', { name: `:${port}` })
    await link.waitFor()
    const href = (await link.getAttribute('href'))!
    expect(href).toBe(`http://127.0.0.1:${port}`)
    expect(await (await fetch(href)).text()).toBe('dev server up')
    await shoot('timeline')
    await bridge.request('/pane/close', { method: 'POST', token: owner.bearer, json: { pane_id: devPane } })
    await until(async () => !((await (await bridge.request('/ports')).json()) as GetResponses['/ports']).ports.some((p) => p.port === port), `port ${port} gone from /ports`)
  })

  it('lets an owner rename and revoke devices and send a test push, and a viewer only watch', async () => {
    const viewer = await pairAs('viewer', 'viewer phone')
    const other = await pairAs('default', 'old laptop')
    await go('#/devices')
    expect(await page.locator('.me .role').textContent()).toBe('owner')
    const row = page.locator(`.device[data-device="${viewer.id}"]`)
    await row.getByLabel('Name of viewer phone').fill('den tablet')
    await row.getByRole('button', { name: 'Rename' }).click()
    await row.locator('.result.ok', { hasText: 'Renamed to den tablet' }).waitFor()
    const listed = ((await (await bridge.request('/admin/devices')).json()) as GetResponses['/admin/devices']).devices
    expect(listed.find((d) => d.id === viewer.id)!.name).toBe('den tablet')
    // A test push goes through every channel: here the webhook the bridge was given.
    const testPush = page.getByRole('region', { name: 'Test push' })
    await testPush.getByRole('button', { name: 'Send test push' }).click()
    await testPush.locator('.result.ok', { hasText: /^Test alert sent: 1 of 1 delivered$/ }).waitFor()
    expect(hooks.filter((h) => h.pane === 'test')).toEqual([
      expect.objectContaining({ event: 'agent.done', pane: 'test', body: expect.stringContaining('push notifications work') }),
    ])
    await shoot('devices')
    const gone = page.locator(`.device[data-device="${other.id}"]`)
    await gone.getByRole('button', { name: 'Revoke' }).click()
    await gone.locator('.confirm').getByRole('button', { name: 'Revoke' }).click()
    await until(async () => (await bridge.request('/info', { token: other.bearer })).status === 401, 'the revoked bearer refused')
    // The viewer sees the agents, and the bridge refuses its writes.
    const pane = (await snapshot()).agents.find((a) => a.agent === 'claude')!.pane_id
    await useDevice(viewer.bearer, '#/devices')
    expect(await page.locator('.me .role').textContent()).toBe('viewer')
    await until(async () => (await page.getByRole('button', { name: 'Send test push' }).count()) === 0, 'no test push for a viewer')
    await go(`#/agent/b1/${encodeURIComponent(pane)}/card`)
    await page.locator('#card-headline').waitFor()
    // It watches without write controls (roles-ui.test.ts covers the card); the bridge refuses the writes anyway.
    await page.locator('.watch-only').waitFor()
    expect(await page.getByRole('button', { name: 'Stop', exact: true }).count()).toBe(0)
    const refused = await bridge.request('/agent/stop', { method: 'POST', token: viewer.bearer, json: { pane_id: pane } })
    expect([refused.status, await refused.text()]).toEqual([403, 'forbidden: this device is a viewer and may only watch'])
    expect((await sim.request('agent.get', { target: pane })).agent?.agent).toBe('claude')
    await useDevice(owner.bearer)
  })

  it('mutes an agent for an hour from the alert settings, and unmutes it', async () => {
    const pane = (await snapshot()).agents.find((a) => a.agent === 'claude')!.pane_id
    await go('#/alerts')
    const row = page.locator(`.mute-row[data-pane="${pane}"]`)
    await row.getByRole('button', { name: 'Mute 1 h' }).click()
    await row.getByRole('button', { name: 'Unmute' }).waitFor()
    const until1h = (await (await bridge.request('/notify/mutes', { token: owner.bearer })).json()).mutes[pane]
    expect(Math.abs(until1h - (Date.now() + 3_600_000))).toBeLessThan(60_000)
    await row.getByRole('button', { name: 'Unmute' }).click()
    await row.getByRole('button', { name: 'Mute 8 h' }).waitFor()
    // Quiet hours, in this browser's time zone.
    await page.getByLabel('Quiet from').fill('22:30')
    await page.getByLabel('Quiet to').fill('06:45')
    await page.getByRole('region', { name: 'Quiet hours' }).getByRole('button', { name: 'Save' }).click()
    await page.locator('[data-quiet="22:30-06:45"]').waitFor()
    const offset = await page.evaluate(() => 0 - new Date().getTimezoneOffset())
    expect(await (await bridge.request('/notify/quiet', { token: owner.bearer })).json()).toEqual({ quiet: { from: '22:30', to: '06:45', utc_offset: offset } })
    expect((await (await bridge.request('/notify/mutes', { token: owner.bearer })).json()).mutes[pane]).toBeUndefined()
    await shoot('alerts')
  })

  it("offers one Mute control in the agent's view: 8 h from its menu, then Unmute", async () => {
    const pane = (await snapshot()).agents.find((a) => a.agent === 'claude')!.pane_id
    await go(`#/agent/b1/${encodeURIComponent(pane)}/card`)
    const menu = page.locator('.agent-view .mute-menu')
    await menu.waitFor()
    // One control: no second Mute button beside the menu.
    expect(await page.locator('.agent-view').getByText(/^Mute/).count()).toBe(1)
    await menu.getByText('Mute…', { exact: true }).click()
    expect(await menu.getByRole('button').allTextContents()).toEqual(['1 h', '8 h', 'Until I unmute'])
    await shoot('agent-mute-menu')
    await menu.getByRole('button', { name: '8 h' }).click()
    // Exact: a role name matches as a substring by default, and the open menu's "Until I unmute" holds "unmute".
    await menu.getByRole('button', { name: 'Unmute', exact: true }).waitFor()
    const until8h = (await (await bridge.request('/notify/mutes', { token: owner.bearer })).json()).mutes[pane]
    expect(Math.abs(until8h - (Date.now() + 8 * 3_600_000))).toBeLessThan(60_000)
    expect(await page.locator('.agent-view .mute-menu').count()).toBe(1)
    await shoot('agent-muted')
    await menu.getByRole('button', { name: 'Unmute', exact: true }).click()
    await menu.getByText('Mute…', { exact: true }).waitFor()
    expect((await (await bridge.request('/notify/mutes', { token: owner.bearer })).json()).mutes[pane]).toBeUndefined()
  })

  it('counts who needs you, walks the blocked agents longest waiting first and ends in All clear', async () => {
    const first = (await sim.request('sim.create_agent_pane', { kind: 'claude', cwd: repo, label: 'first', script: { start: 'permission', default_reply: 'one done' } })).pane
      .pane_id as string
    await new Promise((r) => setTimeout(r, 1100))
    const second = (await sim.request('sim.create_agent_pane', { kind: 'claude', cwd: repo, label: 'second', script: { start: 'permission', default_reply: 'two done' } })).pane
      .pane_id as string
    await go('#/')
    // One count: blocked agents, and finished ones not seen on any device.
    const expected = async () => {
      const snap = await snapshot()
      const seen = (await (await bridge.request('/seen')).json()).seen
      return snap.agents.filter((a) => a.agent_status === 'blocked' || (a.agent_status === 'done' && (seen[a.pane_id]?.seq ?? -1) < a.state_change_seq!)).length
    }
    await until(async () => (await page.title()) === `(${await expected()}) herdr` && (await expected()) >= 2, 'the count in the title')
    // The walk visits every blocked agent, longest waiting first (the oldest last activity).
    await until(async () => (await snapshot()).agents.filter((a) => [first, second].includes(a.pane_id) && a.agent_status === 'blocked').length === 2, 'both blocked')
    const order = (await snapshot()).agents
      .filter((a) => a.agent_status === 'blocked')
      .sort((a, b) => a.last_activity_ts! - b.last_activity_ts!)
      .map((a) => a.pane_id)
    expect(order).toEqual(expect.arrayContaining([first, second]))
    expect(order.indexOf(first)).toBeLessThan(order.indexOf(second))
    await go('#/next')
    for (const [i, pane] of order.entries()) {
      await page.locator(`.triage-bar[data-pane="${pane}"]`).waitFor()
      await tapDefault()
      await until(async () => (await snapshot()).agents.find((a) => a.pane_id === pane)?.agent_status !== 'blocked', `${pane} answered`)
      if (i === 0) await shoot('next')
      await page
        .locator('.triage-bar')
        .getByRole('button', { name: i === order.length - 1 ? 'Done' : 'Next' })
        .click()
    }
    await page.getByRole('heading', { name: 'All clear' }).waitFor()
    await shoot('all-clear')
    // What was opened is seen on every device: the bridge has the marks.
    const seen = (await (await bridge.request('/seen')).json()).seen
    expect(Object.keys(seen)).toEqual(expect.arrayContaining([first, second]))
  })

  it('keeps toasts off the navigation, and greys the data with Pair again when access is lost', async () => {
    await go('#/spaces')
    // The earlier tests' toasts go first (10 s at most), so the line holds only what comes next.
    await page.locator('.toast').waitFor({ state: 'detached', timeout: 30_000 })
    // The page's timers stand still from the tap on, so the tap's toast is still there when an
    // agent's alert arrives after it. The line used to show the newest toast: an alert a moment
    // after a tap hid the tap's result for the rest of its life.
    await page.clock.install()
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000)
    await page.locator('section.space[data-space="w1"]').getByRole('button', { name: 'New tab' }).click()
    const toast = page.locator('.toast', { hasText: 'Opened tab' })
    await toast.waitFor()
    await sim.request('sim.create_agent_pane', { kind: 'claude', cwd: repo, label: 'late', script: { start: 'permission', default_reply: 'ok' } })
    await page.locator('.toast .more', { hasText: /^\+\d+ more$/ }).waitFor()
    expect(await page.locator('.toast').allTextContents()).toEqual([expect.stringMatching(/^Opened tab w1:t\d+ in repo \+\d+ more$/)])
    const [t, nav, head] = await until(async () => {
      const boxes = await Promise.all([toast.boundingBox(), page.locator('nav.sections').boundingBox(), page.locator('header.top').boundingBox()])
      return boxes.every(Boolean) ? boxes : undefined
    }, 'the toast, the sections bar and the header on screen')
    expect(t!.y).toBeGreaterThan(nav!.y + nav!.height)
    expect(t!.y).toBeGreaterThan(head!.y + head!.height)
    // Time runs again: the result goes after its 5 s, and the alert takes the line.
    await page.clock.resume()
    await toast.waitFor({ state: 'detached' })
    await page.locator('.toast.toast-alert').waitFor()
    await go('#/')
    const rows = await page.locator('.agent-row').count()
    expect(rows).toBeGreaterThan(0)
    await bridge.request('/admin/devices/revoke', { method: 'POST', json: { id: owner.id } })
    await page.locator('.stale-banner', { hasText: 'access refused' }).waitFor()
    expect(await page.locator('.stale-banner').getByRole('link', { name: 'Pair again' }).getAttribute('href')).toBe('#/pair')
    expect(await page.locator('section.bridge.stale .agent-row').count()).toBe(rows)
    await shoot('stale')
  })
})
