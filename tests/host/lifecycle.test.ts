import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startHostStack, until, type HostStack } from './helpers.ts'
import type { PaneProcessInfoProcess } from '../../lib/herdr/api.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

type AvailableAgent = GetResponses['/agents/available']['agents'][number]

describe('agent lifecycle against the simulator', () => {
  let st: HostStack
  let repo: string
  beforeAll(async () => {
    st = await startHostStack()
    repo = join(st.home, 'repo')
    mkdirSync(repo)
    await st.sim.request('workspace.create', { cwd: repo, focus: true })
  })
  afterAll(() => st?.close())

  const agentIn = async (pane: string) => (await st.sim.call('agent.get', { target: pane })).result?.agent

  it('lists the kinds on PATH with a boolean state_reporting', async () => {
    const r = await st.get('/agents/available')
    expect(r.status).toBe(200)
    expect(r.body.discovery).toBe('herdr agent kinds + PATH lookup')
    for (const a of r.body.agents) expect(typeof a.state_reporting).toBe('boolean')
    expect(r.body.known_kinds).toContain('claude')
    expect(r.body.known_kinds).toContain('codex')
    expect(r.body.agents.find((a: AvailableAgent) => a.kind === 'claude')).toEqual({ kind: 'claude', path: join(st.sim.shimDir, 'claude'), state_reporting: true })
    // codex is a kind herdr knows but nothing installs it here.
    expect(r.body.agents.find((a: AvailableAgent) => a.kind === 'codex')).toBeUndefined()
  })

  it('refuses a kind herdr does not know with 400', async () => {
    expect(await st.post('/agent/start', { kind: 'notakind', split_from: 'w1:p1' })).toMatchObject({ status: 400, body: 'unknown agent kind: notakind' })
  })

  it('starts claude in an existing idle shell and submits the opening prompt', async () => {
    const r = await st.post('/agent/start', { kind: 'claude', pane_id: 'w1:p1', prompt: 'say hello' })
    expect(r).toEqual({
      status: 200,
      type: expect.stringMatching(/^application\/json/),
      body: { pane_id: 'w1:p1', tab_id: 'w1:t1', workspace_id: 'w1', kind: 'claude', name: 'claude-w1-p1', created_pane: false, prompt_sent: true },
    })
    const agent = await agentIn('w1:p1')
    expect([agent.agent, agent.name, agent.interactive_ready]).toEqual(['claude', 'claude-w1-p1', true])
    await st.screenUntil('w1:p1', (t) => t.includes('> say hello'))
    expect(st.events.find((e) => e.type === 'agent_started')).toMatchObject({
      source: 'bridge',
      payload: { pane_id: 'w1:p1', kind: 'claude', name: 'claude-w1-p1', created_pane: false, session: 'default' },
    })
  })

  it('refuses a pane that already hosts an agent with 409', async () => {
    const r = await st.post('/agent/start', { kind: 'claude', pane_id: 'w1:p1' })
    expect(r).toEqual({ status: 409, type: expect.stringMatching(/^text\/plain/), body: 'pane w1:p1 already runs claude; use /agent/restart' })
  })

  it('starts into a fresh split without taking focus', async () => {
    const r = await st.post('/agent/start', { kind: 'claude', split_from: 'w1:p1', direction: 'right', cwd: repo })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ pane_id: 'w1:p2', tab_id: 'w1:t1', workspace_id: 'w1', kind: 'claude', name: 'claude-w1-p2', created_pane: true, prompt_sent: false })
    expect((await st.sim.request('pane.get', { pane_id: 'w1:p2' })).pane.focused).toBe(false)
    expect((await agentIn('w1:p2')).cwd).toBe(repo)
  })

  it('starts into a new tab of a workspace', async () => {
    const r = await st.post('/agent/start', { kind: 'claude', workspace_id: 'w1', label: 'second', name: 'helper' })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ pane_id: 'w1:p3', tab_id: 'w1:t2', workspace_id: 'w1', name: 'helper', created_pane: true })
    expect((await st.sim.request('tab.get', { tab_id: 'w1:t2' })).tab).toMatchObject({ label: 'second', focused: false })
  })

  it('answers client mistakes with short plain-text 400s', async () => {
    const cases: [unknown, string][] = [
      [{ kind: 'claude' }, 'want exactly one of pane_id, split_from, workspace_id'],
      [{ kind: 'claude', pane_id: 'w1:p1', split_from: 'w1:p1' }, 'want exactly one of pane_id, split_from, workspace_id'],
      [{ kind: 'claude', pane_id: 'w1:p1', cwd: repo }, 'cwd cannot be combined with pane_id (the pane already has a directory)'],
      [{ kind: 'claude', split_from: 'w1:p1', cwd: 'repo' }, 'cwd must be an absolute path'],
      [{ kind: 'claude', split_from: 'w1:p1', cwd: `${repo}/../repo` }, 'cwd must be canonical (no ., .. or //)'],
      [{ kind: 'claude', split_from: 'w1:p1', cwd: `${repo}/` }, 'cwd must be canonical (no ., .. or //)'],
      [{ kind: 'claude', split_from: 'w1:p1', cwd: join(repo, 'missing') }, `cwd does not exist: ${join(repo, 'missing')}`],
      [{ kind: 'claude', split_from: 'w1:p1', name: 'Bad Name' }, 'name: want a lowercase letter then up to 31 of a-z 0-9 _ -'],
      [{ pane_id: 'w1:p1' }, 'kind: want an agent kind'],
      [{ kind: 7, pane_id: 'w1:p1' }, 'kind: want a string'],
    ]
    for (const [body, msg] of cases) {
      const r = await st.post('/agent/start', body)
      expect([body, r.status, r.type.split(';')[0], r.body]).toEqual([body, 400, 'text/plain', msg])
    }
    const panes = (await st.sim.request('pane.list', {})).panes.length
    expect(panes).toBe(3) // nothing was created by a refused call
  })

  it('refuses a kind that is not installed with 409', async () => {
    const r = await st.post('/agent/start', { kind: 'codex', split_from: 'w1:p1' })
    expect(r).toMatchObject({ status: 409, body: 'codex is not installed on this host (not on PATH)' })
  })

  it('refuses a busy pane with 409 naming what runs', async () => {
    const opened = await st.post('/pane/new', { split_from: 'w1:p3', command: 'sleep 300' })
    const pane = opened.body.pane_id
    await until(
      async () => (await st.sim.request('pane.process_info', { pane_id: pane })).process_info.foreground_processes?.some((p: PaneProcessInfoProcess) => p.name === 'sleep'),
      'sleep in the foreground',
    )
    const r = await st.post('/agent/start', { kind: 'claude', pane_id: pane })
    expect(r).toEqual({ status: 409, type: expect.stringMatching(/^text\/plain/), body: `pane ${pane} is busy running sleep 300` })
    expect(await agentIn(pane)).toBeUndefined()
  })

  it('reports an agent that never becomes ready as 502 once herdr gives up', async () => {
    // A shell function shadows the agent binary: the launch types `claude`, which returns at once.
    const opened = await st.post('/pane/new', { split_from: 'w1:p3', command: 'claude() { echo crashed; }' })
    const pane = opened.body.pane_id
    await st.screenUntil(pane, (t) => t.includes('claude() { echo crashed; }'))
    const r = await st.post('/agent/start', { kind: 'claude', pane_id: pane, timeout_ms: 5000 })
    expect(r).toEqual({ status: 502, type: expect.stringMatching(/^text\/plain/), body: `claude did not become ready in pane ${pane} within 5 s` })
    await st.screenUntil(pane, (t) => t.includes('crashed'))
  })

  it('stops an agent back to the shell prompt and keeps the pane', async () => {
    const r = await st.post('/agent/stop', { pane_id: 'w1:p2' })
    expect(r).toEqual({ status: 200, type: expect.stringMatching(/^application\/json/), body: { stopped: true, pane_id: 'w1:p2', kind: 'claude' } })
    const info = (await st.sim.request('pane.process_info', { pane_id: 'w1:p2' })).process_info
    expect(info.shell_pid).toBe(info.foreground_process_group_id)
    expect(st.events.find((e) => e.type === 'agent_stopped')).toMatchObject({ payload: { pane_id: 'w1:p2', kind: 'claude' } })
    expect(await st.post('/agent/stop', { pane_id: 'w1:p2' })).toMatchObject({ status: 404, body: 'no agent in pane w1:p2' })
  })

  it('restarts an agent: a fresh conversation in the same pane, with a prompt', async () => {
    const r = await st.post('/agent/restart', { pane_id: 'w1:p1', prompt: 'start over' })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ restarted: true, pane_id: 'w1:p1', kind: 'claude', name: 'claude-w1-p1', cwd: repo, prompt_sent: true, history_kept: false })
    const screen = await st.screenUntil('w1:p1', (t) => t.includes('> start over'))
    expect(screen).not.toContain('> say hello')
    expect((await agentIn('w1:p1')).interactive_ready).toBe(true)
    expect(st.events.find((e) => e.type === 'agent_restarted')).toMatchObject({ payload: { pane_id: 'w1:p1', kind: 'claude', name: 'claude-w1-p1' } })
  })

  it('answers 409 when the agent will not quit', async () => {
    // A foreground program that ignores ctrl+c, reported as an agent the way a hook would.
    const opened = await st.post('/pane/new', { split_from: 'w1:p3', command: 'bash -c "trap \'\' INT; sleep 300"' })
    const pane = opened.body.pane_id
    await until(
      async () => (await st.sim.request('pane.process_info', { pane_id: pane })).process_info.foreground_processes?.some((p: PaneProcessInfoProcess) => p.name === 'sleep'),
      'sleep in the foreground',
    )
    await st.sim.request('pane.report_agent', { pane_id: pane, source: 'custom:test', agent: 'claude', state: 'working' })
    const r = await st.post('/agent/stop', { pane_id: pane })
    expect(r).toEqual({ status: 409, type: expect.stringMatching(/^text\/plain/), body: `the claude agent in pane ${pane} did not quit; it is still running` })
  })

  it("passes the kind's start options to herdr as arguments, and refuses others with a one-line 400", async () => {
    const panes = (await st.sim.request('pane.list', {})).panes.length
    const cases: [unknown, string][] = [
      [{ effort: 'high' }, 'options.effort: claude has no such start option (it takes model, permission_mode)'],
      [{ permission_mode: 'yolo' }, 'options.permission_mode: want one of default, acceptEdits, plan, bypassPermissions'],
      [{ model: '--dangerously-skip-permissions' }, 'options.model: want up to 100 letters, digits or . _ : / @ [ ] + - (not starting with -)'],
      [{ model: 'a b' }, 'options.model: want up to 100 letters, digits or . _ : / @ [ ] + - (not starting with -)'],
      [{ model: 7 }, 'options.model: want a string'],
      ['sonnet', 'options: want an object of option names to strings'],
    ]
    for (const [options, msg] of cases) {
      const r = await st.post('/agent/start', { kind: 'claude', workspace_id: 'w1', options })
      expect([options, r.status, r.type.split(';')[0], r.body]).toEqual([options, 400, 'text/plain', msg])
    }
    expect((await st.sim.request('pane.list', {})).panes.length).toBe(panes)
    // A kind that declares none takes none.
    expect(await st.post('/agent/start', { kind: 'pi', workspace_id: 'w1', options: { model: 'x' } })).toMatchObject({
      status: 400,
      body: 'options.model: pi has no such start option (it takes none)',
    })
    const r = await st.post('/agent/start', { kind: 'claude', workspace_id: 'w1', options: { permission_mode: 'plan', model: 'sonnet' } })
    expect(r.status).toBe(200)
    // What herdr launched: the agent's process, with the options in the kind's declared order.
    const argv = await until(
      async () =>
        (await st.sim.request('pane.process_info', { pane_id: r.body.pane_id })).process_info.foreground_processes?.find((p: PaneProcessInfoProcess) => p.argv?.includes('--kind'))
          ?.argv as string[] | undefined,
      'the agent in the foreground',
    )
    expect(argv.slice(argv.indexOf('--kind'))).toEqual(['--kind', 'claude', '--model', 'sonnet', '--permission-mode', 'plan'])
  })
})

describe('lifecycle body checks', () => {
  it('stop and restart need a pane_id', async () => {
    const { startBridge } = await import('../harness/bridge.ts')
    const b = await startBridge()
    try {
      for (const path of ['/agent/stop', '/agent/restart']) {
        const res = await b.request(path, { method: 'POST', json: {} })
        expect([path, res.status, await res.text()]).toEqual([path, 400, 'pane_id: want a pane id'])
      }
    } finally {
      await b.close()
    }
  })
})
