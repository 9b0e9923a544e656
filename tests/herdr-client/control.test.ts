import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStack, type Stack } from '../harness/stack.ts'
import userConfig from '../../bridge.config.ts'
import { defineBridgePlugin } from '../../core/plugin.ts'
import { defineAgentKind } from '../../lib/agent-kinds.ts'
import type { BusEvent } from '../../core/bus.ts'
import { count, screen, shellReady, waitScreen } from './helpers.ts'

// A kind that confirms with `y` instead of Enter.
const yesKind = defineBridgePlugin({ name: 'test-yes-kind', agentKinds: [defineAgentKind({ kind: 'yeskind', screen: { confirmKey: 'y' } })] })

let stack: Stack
const events: BusEvent[] = []
// Panes: default w1:p1 and w2:p1, work w1:p1, all bash shells.
const post = async (path: string, json: unknown, token?: string | null) => {
  const res = await stack.bridge.request(path, { method: 'POST', json, token })
  const type = res.headers.get('content-type') ?? ''
  return { status: res.status, body: type.startsWith('application/json') ? await res.json() : await res.text() }
}

beforeAll(async () => {
  stack = await startStack({ sessions: ['default', 'work'], bridge: { user: { plugins: [yesKind, ...userConfig.plugins] } } })
  stack.bridge.bridge.ctx.bus.subscribe({ deliver: (e) => void (e.type === 'approve_applied' && events.push(e)) })
  const { sim } = stack
  for (const [session, n] of [
    ['default', 2],
    ['work', 1],
  ] as const)
    for (let i = 0; i < n; i++) {
      const pane = (await sim.request('workspace.create', { cwd: stack.home }, session)).root_pane.pane_id
      await shellReady(sim, session, pane)
    }
})
afterAll(() => stack?.close())

describe('POST /send', () => {
  it('types text and submits on a trailing newline, in a real shell', async () => {
    expect(await post('/send', { pane: 'w1:p1', text: 'echo $((6*7))\n' })).toEqual({ status: 200, body: { ok: true } })
    await waitScreen(stack.sim, 'default', 'w1:p1', (l) => count(l, '42') === 1)
  })

  it('types without submitting when there is no trailing newline; "\\r" alone is a bare Enter', async () => {
    expect(await post('/send', { pane: 'w1:p1', text: 'echo $((5*5))' })).toEqual({ status: 200, body: { ok: true } })
    await waitScreen(stack.sim, 'default', 'w1:p1', (l) => l.some((x) => x.endsWith('echo $((5*5))')))
    expect(count(await screen(stack.sim, 'default', 'w1:p1'), '25')).toBe(0)
    expect(await post('/send', { pane: 'w1:p1', text: '\r' })).toEqual({ status: 200, body: { ok: true } })
    await waitScreen(stack.sim, 'default', 'w1:p1', (l) => count(l, '25') === 1)
  })

  it('presses one key by herdr name: up recalls history, enter runs it, ctrl+c abandons a line', async () => {
    const { sim } = stack
    await post('/send', { pane: 'w1:p1', text: 'echo $((2*13))\n' })
    await waitScreen(sim, 'default', 'w1:p1', (l) => count(l, '26') === 1)
    expect(await post('/send', { pane: 'w1:p1', key: 'up' })).toEqual({ status: 200, body: { ok: true } })
    await waitScreen(sim, 'default', 'w1:p1', (l) => l.filter((x) => x.endsWith('echo $((2*13))')).length === 2)
    expect(await post('/send', { pane: 'w1:p1', key: 'enter' })).toEqual({ status: 200, body: { ok: true } })
    await waitScreen(sim, 'default', 'w1:p1', (l) => count(l, '26') === 2)
    await post('/send', { pane: 'w1:p1', text: 'echo $((9*9))' })
    await waitScreen(sim, 'default', 'w1:p1', (l) => l.some((x) => x.endsWith('echo $((9*9))')))
    expect(await post('/send', { pane: 'w1:p1', key: 'ctrl+c' })).toEqual({ status: 200, body: { ok: true } })
    // The interrupt flushes the tty's input queue: wait for the fresh prompt before typing on.
    await waitScreen(sim, 'default', 'w1:p1', (l) => {
      const at = l.findIndex((x) => x.includes('echo $((9*9))'))
      return at >= 0 && l.slice(at + 1).some((x) => x === '$')
    })
    await post('/send', { pane: 'w1:p1', text: 'echo $((8*8))\r' })
    const lines = await waitScreen(sim, 'default', 'w1:p1', (l) => count(l, '64') === 1)
    expect(count(lines, '81')).toBe(0)
  })

  it('refuses an unknown key naming it, and sends nothing', async () => {
    await post('/send', { pane: 'w2:p1', text: 'echo $((3*3))' })
    await waitScreen(stack.sim, 'default', 'w2:p1', (l) => l.some((x) => x.endsWith('echo $((3*3))')))
    // `home` is not a herdr key; text with a key is refused whole: neither is sent.
    expect(await post('/send', { pane: 'w2:p1', key: 'home' })).toEqual({ status: 400, body: 'unknown key: "home"' })
    expect(await post('/send', { pane: 'w2:p1', key: 'enter', text: '\r' })).toEqual({ status: 400, body: 'want {pane, text} or {pane, key}, not both' })
    await post('/send', { pane: 'w2:p1', key: 'ctrl+e' })
    await post('/send', { pane: 'w2:p1', text: '0\r' })
    // Had the refused request pressed Enter, 9 would be on screen; `echo $((3*3))0` prints 90.
    const lines = await waitScreen(stack.sim, 'default', 'w2:p1', (l) => count(l, '90') === 1)
    expect(count(lines, '9')).toBe(0)
  })

  it('reaches a pane of a named session through its qualified id', async () => {
    expect(await post('/send', { pane: 'work/w1:p1', text: 'echo $((7*11))\r' })).toEqual({ status: 200, body: { ok: true } })
    await waitScreen(stack.sim, 'work', 'w1:p1', (l) => count(l, '77') === 1)
    expect(count(await screen(stack.sim, 'default', 'w1:p1'), '77')).toBe(0)
  })

  it('answers bad requests with one-line reasons', async () => {
    const want = 'want {pane, text} or {pane, key}'
    expect(await post('/send', { text: 'x' })).toEqual({ status: 400, body: want })
    expect(await post('/send', { pane: '', text: 'x' })).toEqual({ status: 400, body: want })
    expect(await post('/send', { pane: 'w1:p1' })).toEqual({ status: 400, body: want })
    expect(await post('/send', { pane: 'w1:p1', text: '' })).toEqual({ status: 400, body: want })
    expect(await post('/send', { pane: 'w1:p1', text: 5 })).toEqual({ status: 400, body: want })
    const raw = await stack.bridge.request('/send', { method: 'POST', body: '{nope', headers: { 'content-type': 'application/json' } })
    expect([raw.status, await raw.text()]).toEqual([400, want])
    expect(await post('/send', { pane: 'w9:p9', text: 'x' })).toEqual({ status: 404, body: 'no such pane: w9:p9' })
    expect(await post('/send', { pane: 'nosuch/w1:p1', text: 'x' })).toEqual({ status: 404, body: 'session nosuch not found' })
    expect(await post('/send', { pane: 'w1:p1', text: 'x' }, null)).toEqual({ status: 401, body: 'unauthorized' })
    const get = await stack.bridge.request('/send')
    expect([get.status, await get.text()]).toEqual([405, 'POST only'])
  })
})

describe('POST /approve', () => {
  const approve = (json: unknown) => post('/approve', json)
  const agentSeq = async (session: string, pane: string) => (await stack.sim.request('agent.get', { target: pane }, session)).agent.state_change_seq as number
  const lastEvent = () => events.at(-1)!

  it('presses Enter for a blocked agent whose seq matches, and the key reaches the PTY', async () => {
    const { sim } = stack
    await sim.request('sim.set_status', { pane_id: 'w2:p1', state: 'blocked', agent: 'codex' })
    await post('/send', { pane: 'w2:p1', key: 'ctrl+u' })
    await post('/send', { pane: 'w2:p1', text: 'echo $((12*12))' })
    await waitScreen(sim, 'default', 'w2:p1', (l) => l.some((x) => x.endsWith('echo $((12*12))')))
    const seq = await agentSeq('default', 'w2:p1')
    expect(await approve({ agent: 'w2:p1', seq })).toEqual({ status: 200, body: { ok: true, applied: true } })
    await waitScreen(sim, 'default', 'w2:p1', (l) => count(l, '144') === 1)
    expect(lastEvent()).toMatchObject({ source: 'bridge', type: 'approve_applied', payload: { pane: 'w2:p1', seq, applied: true, reason: '' } })
  })

  it('refuses a stale seq without a keystroke', async () => {
    const { sim } = stack
    await post('/send', { pane: 'w2:p1', text: 'echo $((13*13))' })
    await waitScreen(sim, 'default', 'w2:p1', (l) => l.some((x) => x.endsWith('echo $((13*13))')))
    const stale = await agentSeq('default', 'w2:p1')
    // The agent moved on and came back to blocked: same status, newer seq.
    await sim.request('sim.set_status', { pane_id: 'w2:p1', state: 'working' })
    await sim.request('sim.set_status', { pane_id: 'w2:p1', state: 'blocked' })
    const now = await agentSeq('default', 'w2:p1')
    expect(now).toBe(stale + 2)
    const reason = `stale seq: approve carried ${stale}, agent now at ${now}`
    expect(await approve({ agent: 'w2:p1', seq: stale })).toEqual({ status: 200, body: { ok: true, applied: false, reason } })
    expect(lastEvent().payload).toEqual({ pane: 'w2:p1', seq: stale, applied: false, reason })
    // A push carries the seq as a string; it counts the same.
    expect(await approve({ agent: 'w2:p1', seq: String(now) })).toEqual({ status: 200, body: { ok: true, applied: true } })
    await waitScreen(sim, 'default', 'w2:p1', (l) => count(l, '169') === 1)
  })

  it('refuses an agent that is not blocked', async () => {
    await stack.sim.request('sim.set_status', { pane_id: 'w2:p1', state: 'working' })
    const seq = await agentSeq('default', 'w2:p1')
    const reason = 'agent is working, not blocked'
    expect(await approve({ agent: 'w2:p1', seq })).toEqual({ status: 200, body: { ok: true, applied: false, reason } })
    expect(lastEvent().payload).toEqual({ pane: 'w2:p1', seq, applied: false, reason })
  })

  it('answers no such agent for an unknown pane, a plain shell and an unknown session', async () => {
    for (const agent of ['w9:p9', 'w1:p1', 'nosuch/w1:p1']) {
      expect(await approve({ agent, seq: 1 })).toEqual({ status: 200, body: { ok: true, applied: false, reason: 'no such agent' } })
      expect(lastEvent().payload).toEqual({ pane: agent, seq: 1, applied: false, reason: 'no such agent' })
    }
  })

  it('uses the kind confirm key, through a qualified id of a named session', async () => {
    const { sim } = stack
    await sim.request('sim.set_status', { pane_id: 'w1:p1', state: 'blocked', agent: 'yeskind' }, 'work')
    await post('/send', { pane: 'work/w1:p1', text: 'echo ok' })
    await waitScreen(sim, 'work', 'w1:p1', (l) => l.some((x) => x.endsWith('echo ok')))
    const seq = await agentSeq('work', 'w1:p1')
    expect(await approve({ agent: 'work/w1:p1', seq })).toEqual({ status: 200, body: { ok: true, applied: true } })
    expect(lastEvent().payload).toEqual({ pane: 'work/w1:p1', seq, applied: true, reason: '' })
    await waitScreen(sim, 'work', 'w1:p1', (l) => l.some((x) => x.endsWith('echo oky')))
    await post('/send', { pane: 'work/w1:p1', text: '\n' })
    await waitScreen(sim, 'work', 'w1:p1', (l) => count(l, 'oky') === 1)
  })

  it('is a 400 without agent, before any lookup', async () => {
    const before = events.length
    expect(await approve({ seq: 1 })).toEqual({ status: 400, body: 'want {agent, seq}' })
    expect(await approve({ agent: '', seq: 1 })).toEqual({ status: 400, body: 'want {agent, seq}' })
    expect(await approve([])).toEqual({ status: 400, body: 'want {agent, seq}' })
    expect(events.length).toBe(before)
  })
})

describe('herdr gone', () => {
  it('turns a dead socket into a quick 502 on /send, and a quick 200 not-applied on /approve (spec 1 §7)', async () => {
    await stack.sim.kill()
    const send = await stack.bridge.request('/send', { method: 'POST', json: { pane: 'w1:p1', text: 'x' }, signal: AbortSignal.timeout(5_000) })
    expect(send.status).toBe(502)
    expect(await send.text()).toMatch(/^herdr: unreachable: /)
    const approve = await stack.bridge.request('/approve', { method: 'POST', json: { agent: 'w1:p1', seq: 1 }, signal: AbortSignal.timeout(5_000) })
    expect(approve.status).toBe(200)
    expect(await approve.json()).toEqual({ ok: true, applied: false, reason: expect.stringMatching(/^herdr: unreachable: /) })
  })
})
