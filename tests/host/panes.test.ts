import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHostStack, type HostStack } from './helpers.ts'

describe('POST /pane/new and /pane/close', () => {
  let st: HostStack
  beforeAll(async () => {
    st = await startHostStack()
    await st.sim.request('workspace.create', { cwd: st.home, focus: true })
  })
  afterAll(() => st?.close())

  it('splits a pane without taking focus, runs the command in it and emits pane_created', async () => {
    const r = await st.post('/pane/new', { split_from: 'w1:p1', direction: 'right', command: 'echo hello-$((6*7))' })
    expect(r).toEqual({ status: 200, type: expect.stringMatching(/^application\/json/), body: { pane_id: 'w1:p2', tab_id: 'w1:t1', workspace_id: 'w1' } })
    await st.screenUntil('w1:p2', (t) => t.includes('hello-42'))
    expect((await st.sim.request('pane.get', { pane_id: 'w1:p1' })).pane.focused).toBe(true)
    expect((await st.sim.request('pane.get', { pane_id: 'w1:p2' })).pane.focused).toBe(false)
    const ev = st.events.find((e) => e.type === 'pane_created')
    expect(ev).toMatchObject({ source: 'bridge', payload: { pane_id: 'w1:p2', tab_id: 'w1:t1', workspace_id: 'w1', session: 'default' } })
  })

  it('opens a labelled tab in a workspace, in the given cwd', async () => {
    const r = await st.post('/pane/new', { workspace_id: 'w1', label: 'logs', cwd: '/tmp', command: 'pwd' })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ pane_id: 'w1:p3', tab_id: 'w1:t2', workspace_id: 'w1' })
    const tab = (await st.sim.request('tab.get', { tab_id: 'w1:t2' })).tab
    expect([tab.label, tab.focused]).toEqual(['logs', false])
    await st.screenUntil('w1:p3', (t) => /^\/tmp$/m.test(t))
  })

  it('refuses bad bodies with one-line 400s and unknown panes with 404', async () => {
    expect(await st.post('/pane/new', { split_from: 'w1:p1', workspace_id: 'w1' })).toMatchObject({ status: 400, body: 'want at most one of split_from, workspace_id' })
    expect(await st.post('/pane/new', { split_from: 'w1:p1', direction: 'sideways' })).toMatchObject({ status: 400, body: 'direction: want right, down, up or left' })
    expect(await st.post('/pane/new', { split_from: 'w1:p1', command: 'ls\nrm -rf /' })).toMatchObject({ status: 400, body: 'command must be one line' })
    expect(await st.post('/pane/new', { split_from: 'w1:p1', cwd: 'relative' })).toMatchObject({ status: 400, body: 'cwd must be an absolute path' })
    expect(await st.post('/pane/new', { split_from: 'w1:p99' })).toMatchObject({ status: 404, type: expect.stringMatching(/^text\/plain/) })
    expect(await st.post('/pane/close', {})).toMatchObject({ status: 400, body: 'want {pane_id}' })
  })

  it('closes a pane and emits pane_closed; a second close is 404', async () => {
    expect(await st.post('/pane/close', { pane_id: 'w1:p2' })).toMatchObject({ status: 200, body: { closed: true, pane_id: 'w1:p2' } })
    const gone = await st.sim.call('pane.get', { pane_id: 'w1:p2' })
    expect(gone.error?.code).toBe('pane_not_found')
    expect(st.events.find((e) => e.type === 'pane_closed')).toMatchObject({ source: 'bridge', payload: { pane_id: 'w1:p2', session: 'default' } })
    expect(await st.post('/pane/close', { pane_id: 'w1:p2' })).toMatchObject({ status: 404 })
  })

  it('needs a bearer before touching herdr', async () => {
    const res = await st.bridge.request('/pane/new', { method: 'POST', json: { split_from: 'w1:p1' }, token: null })
    expect(res.status).toBe(401)
    expect((await st.sim.request('pane.list', {})).panes.length).toBe(2)
  })
})
