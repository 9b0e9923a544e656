import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHostStack, type HostStack } from './helpers.ts'

describe('host operations in a named session', () => {
  let st: HostStack
  beforeAll(async () => {
    st = await startHostStack({ sessions: ['default', 'work'] })
    await st.sim.request('workspace.create', { cwd: st.home }, 'work')
  })
  afterAll(() => st?.close())

  it('creates panes and starts agents with session-qualified ids in and out', async () => {
    const pane = await st.post('/pane/new', { workspace_id: 'work/w1', command: 'echo in-work' })
    expect(pane).toMatchObject({ status: 200, body: { pane_id: 'work/w1:p2', tab_id: 'work/w1:t2', workspace_id: 'work/w1' } })
    await st.screenUntil('work/w1:p2', (t) => /^in-work$/m.test(t))
    expect(st.events.find((e) => e.type === 'pane_created')?.payload).toMatchObject({ pane_id: 'work/w1:p2', session: 'work' })

    const r = await st.post('/agent/start', { kind: 'claude', pane_id: 'work/w1:p1', prompt: 'hi there' })
    expect(r.body).toEqual({ pane_id: 'work/w1:p1', tab_id: 'work/w1:t1', workspace_id: 'work/w1', kind: 'claude', name: 'claude-w1-p1', created_pane: false, prompt_sent: true })
    await st.screenUntil('work/w1:p1', (t) => t.includes('> hi there'))
    // The default session has no such pane: nothing leaked across.
    expect((await st.sim.call('pane.get', { pane_id: 'w1:p1' })).error?.code).toBe('pane_not_found')

    const cmds = await st.get('/commands?pane=work/w1:p1')
    expect(cmds).toMatchObject({ status: 200, body: { pane: 'work/w1:p1', agent_kind: 'claude' } })
    expect((await st.get('/suggestions?pane=work/w1:p1')).body).toEqual({ pane: 'work/w1:p1', suggestions: [] })

    expect(await st.post('/agent/stop', { pane_id: 'work/w1:p1' })).toMatchObject({ status: 200, body: { stopped: true, pane_id: 'work/w1:p1', kind: 'claude' } })
    expect(await st.post('/pane/close', { pane_id: 'work/w1:p2' })).toMatchObject({ status: 200, body: { closed: true, pane_id: 'work/w1:p2' } })
  })

  it('answers an unknown session with 404', async () => {
    expect(await st.post('/pane/close', { pane_id: 'nope/w1:p1' })).toMatchObject({ status: 404, body: 'session nope not found' })
    expect(await st.post('/agent/start', { kind: 'claude', pane_id: 'nope/w1:p1' })).toMatchObject({ status: 404 })
  })
})
