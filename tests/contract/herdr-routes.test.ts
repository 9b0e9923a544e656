// Routes that need herdr, against the simulator: their real 200 bodies match the shapes
// GET /openapi.json documents (manifest valibot schema and the published JSON Schema).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSim } from '../harness/sim.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { createConformance, type OpenApiDoc } from './conform.ts'
import { PDF, PNG } from '../attachments/samples.ts'
import { until } from '../harness/wait.ts'

let home: string
let sim: Awaited<ReturnType<typeof startSim>>
let bridge: TestBridge
let conforms: ReturnType<typeof createConformance>
let pane: string
let shellPane: string
let workspace: string
let cwd: string

/** A repo on `main` with a merged branch `feature`, one modified and one untracked file. */
function makeRepo(dir: string) {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, stdio: 'pipe' })
  git('init', '-q', '-b', 'main')
  writeFileSync(join(dir, 'a.txt'), Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n')
  git('add', '.')
  git('commit', '-q', '-m', 'one')
  git('branch', 'feature')
  writeFileSync(join(dir, 'a.txt'), Array.from({ length: 20 }, (_, i) => `line ${i === 9 ? 'ten' : i + 1}`).join('\n') + '\n')
  writeFileSync(join(dir, 'new.txt'), 'hello\n')
}

const req = (path: string, init?: Parameters<TestBridge['request']>[1]) => bridge.request(path, init)
const post = (path: string, json: unknown) => req(path, { method: 'POST', json })

beforeAll(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'bridge-contract-')))
  sim = await startSim({ home, testMode: true })
  // The simulator's fake agents on the bridge's PATH: `claude` counts as installed.
  bridge = await startBridge({ home, env: { PATH: sim.clientEnv().PATH } })
  cwd = join(home, 'repo')
  mkdirSync(cwd, { recursive: true })
  makeRepo(cwd)
  const doc = (await (await req('/openapi.json', { token: null })).json()) as OpenApiDoc
  conforms = createConformance(bridge, doc)
  const r = await sim.request('sim.create_agent_pane', {
    kind: 'claude',
    cwd,
    script: { start: 'permission', permission: { name: 'Bash', input: { command: 'ls', description: 'List files' }, category: 'tool_approval' } },
  })
  pane = r.pane.pane_id
  const ws = await sim.request('workspace.create', { cwd, focus: false })
  shellPane = ws.root_pane.pane_id
  workspace = ws.workspace.workspace_id
})

afterAll(async () => {
  await bridge?.close().catch(() => {})
  await sim?.stop().catch(() => {})
  if (home) rmSync(home, { recursive: true, force: true })
})

describe('herdr-backed routes match their documented 200 bodies', () => {
  it('GET /snapshot', async () => {
    const body = await conforms('GET', '/snapshot', await req('/snapshot'))
    // Ids of the default session stay bare.
    expect(body.result.snapshot.agents.map((a) => a.pane_id)).toEqual([pane])
    expect(body.result.snapshot.sessions).toEqual(['default'])
  })

  it('GET /readyz', async () => {
    expect(await conforms('GET', '/readyz', await req('/readyz', { token: null }))).toEqual({ ok: true, sessions: ['default'] })
  })

  it('GET /agent-state while blocked, with blocked options', async () => {
    const card = await until(async () => {
      const c = await conforms('GET', '/agent-state', await req(`/agent-state?pane=${encodeURIComponent(pane)}`))
      return c.agent_status === 'blocked' && c.blocked?.options?.length ? c : undefined
    }, 'a blocked card')
    expect(card.blocked?.options[0]).toEqual(expect.objectContaining({ index: 1, selected: true }))
  })

  it('POST /approve (stale seq, not applied) and POST /send', async () => {
    const body = await conforms('POST', '/approve', await req('/approve', { method: 'POST', json: { agent: pane, seq: -5 } }))
    expect(body.applied).toBe(false)
    expect(await conforms('POST', '/send', await req('/send', { method: 'POST', json: { pane: shellPane, text: 'true' } }))).toEqual({ ok: true })
  })

  it('POST /herdr reads and a write', async () => {
    for (const method of ['session.snapshot', 'workspace.list', 'pane.list', 'agent.list', 'tab.list']) {
      const body = await conforms('POST', '/herdr', await req('/herdr', { method: 'POST', json: { method, params: {} } }))
      expect(typeof body.result, method).toBe('object')
    }
    await conforms('POST', '/herdr', await req('/herdr', { method: 'POST', json: { method: 'pane.focus', params: { pane_id: shellPane } } }))
  })

  it('POST /agent-mode/cycle', async () => {
    const body = await conforms('POST', '/agent-mode/cycle', await req('/agent-mode/cycle', { method: 'POST', json: { pane } }))
    expect(body).toEqual(expect.objectContaining({ ok: true, cycled: true }))
  })

  it('GET /agents/available, GET /commands, GET /suggestions, GET /ports, GET /browse, GET /usage', async () => {
    const avail = await conforms('GET', '/agents/available', await req('/agents/available'))
    expect(avail.agents.map((a) => a.kind)).toContain('claude')
    const commands = await conforms('GET', '/commands', await req(`/commands?pane=${encodeURIComponent(pane)}`))
    expect(commands.agent_kind).toBe('claude')
    await conforms('GET', '/suggestions', await req(`/suggestions?pane=${encodeURIComponent(shellPane)}`))
    await conforms('GET', '/ports', await req('/ports'))
    const browse = await conforms('GET', '/browse', await req('/browse'))
    expect(browse.path).toBe(home)
    // No claude credential in this HOME: the kind is listed as unavailable, with the reason.
    const usage = await conforms('GET', '/usage', await req('/usage'))
    expect(usage.claude).toEqual({ available: false, reason: 'Claude is not configured' })
  })

  it('POST /pane/new, /agent/start, /agent/restart, /agent/stop, /pane/close', { timeout: 120_000 }, async () => {
    const created = await conforms('POST', '/pane/new', await post('/pane/new', { split_from: shellPane, direction: 'right' }))
    const started = await conforms('POST', '/agent/start', await post('/agent/start', { kind: 'claude', pane_id: created.pane_id }))
    expect(started).toEqual(expect.objectContaining({ pane_id: created.pane_id, kind: 'claude', created_pane: false, prompt_sent: false }))
    const restarted = await conforms('POST', '/agent/restart', await post('/agent/restart', { pane_id: created.pane_id }))
    expect(restarted).toEqual(expect.objectContaining({ restarted: true, history_kept: false }))
    expect(await conforms('POST', '/agent/stop', await post('/agent/stop', { pane_id: created.pane_id }))).toEqual({ stopped: true, pane_id: created.pane_id, kind: 'claude' })
    expect(await conforms('POST', '/pane/close', await post('/pane/close', { pane_id: created.pane_id }))).toEqual({ closed: true, pane_id: created.pane_id })
  })

  it('GET /diff, GET /diff/expand', async () => {
    const diff = await conforms('GET', '/diff', await req(`/diff?pane=${encodeURIComponent(pane)}`))
    expect(diff.files.map((f) => [f.path, f.status])).toEqual([
      ['a.txt', 'modified'],
      ['new.txt', 'untracked'],
    ])
    const slice = await conforms('GET', '/diff/expand', await req(`/diff/expand?pane=${encodeURIComponent(pane)}&path=a.txt&start=1&count=3`))
    expect(slice).toEqual({ path: 'a.txt', start: 1, lines: ['line 1', 'line 2', 'line 3'], eof: false, total: 20 })
  })

  it('GET /branch-info, POST /branch-delete', async () => {
    const info = await conforms('GET', '/branch-info', await req(`/branch-info?workspace_id=${encodeURIComponent(workspace)}`))
    expect(info.workspace_id).toBe(workspace)
    const deleted = await conforms('POST', '/branch-delete', await post('/branch-delete', { repo_root: cwd, branch: 'feature' }))
    expect(deleted).toEqual(expect.objectContaining({ branch: 'feature', deleted: true, forced: false, merged: true, remote_deleted: false }))
  })

  it('POST /image, POST /file', async () => {
    const raw = (path: string, body: Buffer) =>
      req(`${path}?pane=${encodeURIComponent(pane)}`, { method: 'POST', body: new Uint8Array(body), headers: { 'content-type': 'application/octet-stream' } })
    expect(await conforms('POST', '/image', await raw('/image', PNG))).toEqual(expect.objectContaining({ content_type: 'image/png', bytes: PNG.length }))
    expect(await conforms('POST', '/file', await raw('/file', PDF))).toEqual(expect.objectContaining({ content_type: 'application/pdf', bytes: PDF.length }))
  })
})
