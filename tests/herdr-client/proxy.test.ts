import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import { count, screen, shellReady } from './helpers.ts'
import type { ResponseResult } from '../../lib/herdr/api.ts'

/** POST /herdr's body: herdr's result of one type (any, unless named), or the bridge's error. */
type Reply<T extends ResponseResult['type']> = { result: Extract<ResponseResult, { type: T }>; error?: string }

let stack: Stack
const call = async <T extends ResponseResult['type'] = ResponseResult['type']>(json: unknown, init: { token?: string | null; raw?: string } = {}) => {
  const res = await stack.bridge.request('/herdr', {
    method: 'POST',
    ...(init.raw !== undefined ? { body: init.raw, headers: { 'content-type': 'application/json' } } : { json }),
    token: init.token,
    signal: AbortSignal.timeout(10_000),
  })
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  return { status: res.status, body: (await res.json()) as Reply<T> }
}

beforeAll(async () => {
  stack = await startStack({ sessions: ['default', 'work'] })
  for (const session of ['default', 'work']) await stack.sim.request('workspace.create', { cwd: stack.home }, session)
  await shellReady(stack.sim, 'work', 'w1:p1')
})
afterAll(() => stack?.close())

describe('POST /herdr reads', () => {
  it('infers the session from a qualified id and qualifies the result', async () => {
    const { status, body } = await call({ method: 'pane.get', params: { pane_id: 'work/w1:p1' } })
    expect(status).toBe(200)
    expect(body.result).toMatchObject({ type: 'pane_info', pane: { pane_id: 'work/w1:p1', tab_id: 'work/w1:t1', workspace_id: 'work/w1' } })
  })

  it('goes to the default session for bare ids, and to an explicit session', async () => {
    expect((await call<'workspace_info'>({ method: 'workspace.get', params: { workspace_id: 'w1' } })).body.result.workspace.workspace_id).toBe('w1')
    const snap = await call<'session_snapshot'>({ method: 'session.snapshot', params: {}, session: 'work' })
    expect(snap.status).toBe(200)
    expect(snap.body.result.snapshot.panes.map((p) => p.pane_id)).toEqual(['work/w1:p1'])
    expect(snap.body.result.snapshot.focused_pane_id).toBe('work/w1:p1')
    // Bare ids with an explicit session belong to that session.
    expect((await call<'tab_info'>({ method: 'tab.get', params: { tab_id: 'w1:t1' }, session: 'work' })).body.result.tab.tab_id).toBe('work/w1:t1')
    // Missing params are {}.
    expect((await call<'workspace_list'>({ method: 'workspace.list' })).body.result.workspaces.map((w) => w.workspace_id)).toEqual(['w1'])
  })

  it('turns *_not_found into 404 and other herdr errors into 502', async () => {
    const missing = await call({ method: 'pane.get', params: { pane_id: 'work/w1:p9' } })
    expect(missing.status).toBe(404)
    expect(missing.body.error).toMatch(/^herdr: pane_not_found: /)
    const bad = await call({ method: 'workspace.get', params: {} })
    expect(bad.status).toBe(502)
    expect(bad.body.error).toMatch(/^herdr: invalid_request: /)
  })
})

describe('POST /herdr writes', () => {
  it('creates a tab without stealing focus unless asked', async () => {
    const quiet = await call({ method: 'tab.create', params: { workspace_id: 'work/w1' } })
    expect(quiet.status).toBe(200)
    expect(quiet.body.result).toMatchObject({ type: 'tab_created', tab: { tab_id: 'work/w1:t2', focused: false }, root_pane: { pane_id: 'work/w1:p2' } })
    expect((await stack.sim.request('workspace.get', { workspace_id: 'w1' }, 'work')).workspace.active_tab_id).toBe('w1:t1')
    const loud = await call({ method: 'tab.create', params: { workspace_id: 'work/w1', focus: true } })
    expect(loud.body.result).toMatchObject({ tab: { tab_id: 'work/w1:t3', focused: true } })
    expect((await stack.sim.request('workspace.get', { workspace_id: 'w1' }, 'work')).workspace.active_tab_id).toBe('w1:t3')
  })

  it('splits, renames and closes through qualified ids', async () => {
    const split = await call({ method: 'pane.split', params: { target_pane_id: 'work/w1:p1', direction: 'right' } })
    expect(split.status).toBe(200)
    expect(split.body.result).toMatchObject({ type: 'pane_info', pane: { pane_id: 'work/w1:p4', tab_id: 'work/w1:t1', focused: false } })
    expect((await call({ method: 'tab.rename', params: { tab_id: 'work/w1:t2', label: 'logs' } })).body.result).toMatchObject({ tab: { tab_id: 'work/w1:t2', label: 'logs' } })
    expect(await call({ method: 'pane.close', params: { pane_id: 'work/w1:p4' } })).toEqual({ status: 200, body: { result: { type: 'ok' } } })
    expect((await call({ method: 'pane.get', params: { pane_id: 'work/w1:p4' } })).status).toBe(404)
  })
})

describe('POST /herdr refusals', () => {
  it('refuses methods off the allowlist without touching herdr', async () => {
    for (const method of ['pane.send_text', 'pane.send_keys', 'agent.prompt', 'server.stop', 'events.subscribe', 'agent.view.set', 'pane.rename', 'workspace.close'])
      expect(await call({ method, params: { pane_id: 'work/w1:p1', text: 'echo $((4*4))\r', keys: ['enter'] } })).toEqual({
        status: 403,
        body: { error: `method not allowed: ${method}` },
      })
    expect(count(await screen(stack.sim, 'work', 'w1:p1'), '16')).toBe(0)
    expect((await stack.sim.request('pane.get', { pane_id: 'w1:p1' }, 'work')).pane.label).toBeUndefined()
  })

  it('answers malformed requests and session mistakes', async () => {
    const want = { error: 'want {method, params}' }
    expect(await call(undefined, { raw: '{"method":' })).toEqual({ status: 400, body: want })
    expect(await call(undefined, { raw: '' })).toEqual({ status: 400, body: want })
    expect(await call({ params: {} })).toEqual({ status: 400, body: want })
    expect(await call({ method: '', params: {} })).toEqual({ status: 400, body: want })
    expect(await call({ method: 'pane.get', params: ['w1:p1'] })).toEqual({ status: 400, body: want })
    expect(await call({ method: 'pane.get', params: { pane_id: 'work/w1:p1' }, session: 'default' })).toEqual({
      status: 400,
      body: { error: 'session default contradicts ids of session work' },
    })
    expect(await call({ method: 'pane.split', params: { target_pane_id: 'work/w1:p1', workspace_id: 'w1', direction: 'right' } })).toEqual({ status: 200, body: expect.anything() })
    expect((await call({ method: 'pane.split', params: { target_pane_id: 'work/w1:p1', workspace_id: 'other/w1', direction: 'right' } })).status).toBe(400)
    expect(await call({ method: 'pane.get', params: { pane_id: 'nosuch/w1:p1' } })).toEqual({ status: 404, body: { error: 'session nosuch not found' } })
    expect(await call({ method: 'workspace.list', params: {}, session: '../../x' })).toEqual({ status: 404, body: { error: 'session ../../x not found' } })
    const anon = await stack.bridge.request('/herdr', { method: 'POST', json: { method: 'workspace.list' }, token: null })
    expect([anon.status, await anon.text()]).toEqual([401, 'unauthorized'])
  })

  it('answers 405 for other methods', async () => {
    const res = await stack.bridge.request('/herdr')
    expect([res.status, await res.json()]).toEqual([405, { error: 'POST only' }])
  })
})

describe('herdr gone', () => {
  it('502s quickly while refusals still refuse', async () => {
    await stack.sim.stopSession('work')
    const res = await call({ method: 'pane.get', params: { pane_id: 'work/w1:p1' } })
    expect(res.status).toBe(502)
    expect(res.body.error).toMatch(/^herdr: unreachable: /)
    expect(await call({ method: 'pane.send_text', params: {} })).toEqual({ status: 403, body: { error: 'method not allowed: pane.send_text' } })
  })
})
