// GET /agent-state and POST /agent-mode/cycle against the simulator's fake claude agent: real
// PTYs, real bridge, real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'
import type { BusEvent } from '../../core/bus.ts'

let stack: Stack
let cwd: string

async function claudePane(script: Record<string, unknown>): Promise<string> {
  const r = await stack.sim.request('sim.create_agent_pane', { kind: 'claude', cwd, script })
  return r.pane.pane_id as string
}

/** The card as the API document types it. */
type Card = GetResponses['/agent-state']

const get = (path: string, token?: string | null) => stack.bridge.request(path, token === undefined ? {} : { token })

async function cardWhen(pane: string, pred: (c: Card) => boolean, what: string): Promise<Card> {
  return until(async () => {
    const res = await get(`/agent-state?pane=${encodeURIComponent(pane)}`)
    if (res.status !== 200) throw new Error(`agent-state ${res.status}: ${await res.text()}`)
    const c = (await res.json()) as Card
    return pred(c) ? c : undefined
  }, what)
}

async function screenHas(pane: string, needle: string): Promise<void> {
  await until(async () => {
    const r = await stack.sim.request('pane.read', { pane_id: pane, source: 'visible', format: 'text' })
    return r.read.text.includes(needle) ? true : undefined
  }, `"${needle}" on screen`)
}

beforeAll(async () => {
  stack = await startStack()
  cwd = join(stack.home, 'repo')
  mkdirSync(cwd, { recursive: true })
})

afterAll(async () => {
  await stack?.close()
})

describe('GET /agent-state', () => {
  it('blocked on a permission prompt: question, options, category, permission mode', async () => {
    const pane = await claudePane({
      start: 'permission',
      mode: 'acceptEdits',
      permission: { name: 'Bash', input: { command: 'rm -rf build', description: 'Remove the build output' }, category: 'tool_approval' },
    })
    const card = await cardWhen(pane, (c) => c.agent_status === 'blocked' && (c.blocked?.options.length ?? 0) > 0, 'a blocked card')
    expect(card).toEqual({
      pane_id: pane,
      agent_kind: 'claude',
      agent_status: 'blocked',
      permission_mode: 'acceptEdits',
      headline: 'Do you want to proceed?',
      detail: 'Bash command\nrm -rf build\nRemove the build output',
      blocked: {
        question: 'Do you want to proceed?',
        options: [
          { index: 1, label: 'Yes', selected: true },
          { index: 2, label: `Yes, and don't ask again for rm commands in ${cwd}`, selected: false, risky: true },
          { index: 3, label: 'No, and tell Claude what to do differently (esc)', selected: false },
        ],
        category: 'tool_approval',
      },
      transcript: card.transcript,
      parsed: true,
    })
    expect(Array.isArray(card.transcript)).toBe(true)
  })

  it('blocked on a question panel: every option, the question, category question_panel', async () => {
    const pane = await claudePane({
      start: 'question',
      question: {
        header: 'Database',
        question: 'Which database should we use?',
        options: [{ label: 'Postgres', description: 'Relational' }, { label: 'SQLite' }],
        category: 'question_panel',
      },
    })
    const card = await cardWhen(pane, (c) => c.agent_status === 'blocked' && (c.blocked?.options.length ?? 0) > 0, 'a blocked question card')
    expect(card.headline).toBe('Which database should we use?')
    expect(card.blocked).toEqual({
      question: 'Which database should we use?',
      options: [
        { index: 1, label: 'Postgres', selected: true },
        { index: 2, label: 'SQLite', selected: false },
        { index: 3, label: 'Type something.', selected: false },
      ],
      category: 'question_panel',
    })
  })

  it('idle: no blocked, default mode is not shown, ?token= works', async () => {
    const pane = await claudePane({ start: 'idle' })
    const card = await cardWhen(pane, (c) => c.agent_status === 'idle', 'an idle card')
    expect(card.agent_kind).toBe('claude')
    expect(card.parsed).toBe(true)
    expect('blocked' in card).toBe(false)
    expect('permission_mode' in card).toBe(false)
    expect(typeof card.headline).toBe('string')
    expect(card.headline.length).toBeGreaterThan(0)

    const viaQuery = await fetch(`${stack.bridge.url}/agent-state?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`)
    expect(viaQuery.status).toBe(200)
    expect((await viaQuery.json()).pane_id).toBe(pane)
    const { bearer } = await stack.bridge.pair('phone')
    const viaDevice = await fetch(`${stack.bridge.url}/agent-state?pane=${encodeURIComponent(pane)}&token=${bearer}`)
    expect(viaDevice.status).toBe(200)
  })

  it('errors: 400 without pane, 401 without or with a bad token, 404 for a shell pane and an unknown pane', async () => {
    let res = await get('/agent-state')
    expect(res.status).toBe(400)
    expect(await res.text()).toBe('want ?pane=<pane_id>')
    res = await get('/agent-state?pane=')
    expect(res.status).toBe(400)
    expect(await res.text()).toBe('want ?pane=<pane_id>')

    res = await get('/agent-state?pane=w1:p1', null)
    expect(res.status).toBe(401)
    expect(await res.text()).toBe('unauthorized')
    res = await fetch(`${stack.bridge.url}/agent-state?pane=w1:p1&token=nope`)
    expect(res.status).toBe(401)
    expect(await res.text()).toBe('unauthorized')

    const shell = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id
    res = await get(`/agent-state?pane=${encodeURIComponent(shell)}`)
    expect(res.status).toBe(404)
    expect(await res.text()).toBe('no such agent')
    res = await get('/agent-state?pane=w999:p999')
    expect(res.status).toBe(404)
    expect(await res.text()).toBe('no such agent')
    res = await get('/agent-state?pane=nosuchsession/w1:p1')
    expect(res.status).toBe(404)
    expect(await res.text()).toBe('no such agent')

    res = await stack.bridge.request('/agent-state?pane=w1:p1', { method: 'POST' })
    expect(res.status).toBe(405)
  })
})

describe('POST /agent-mode/cycle', () => {
  it('changes the mode on the real screen and echoes it; the card follows', async () => {
    const pane = await claudePane({ start: 'idle', mode: 'acceptEdits' })
    await screenHas(pane, 'accept edits on')
    const seqBefore = stack.bridge.bridge.ctx.bus.seq
    const events: BusEvent[] = []
    const off = stack.bridge.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e) })
    try {
      // The read-back window is about 1 s; a machine too slow to redraw within it may omit the
      // mode (the spec allows that), but a mode it does echo must be the next one on the ring.
      const cycle = async (next: string) => {
        const res = await stack.bridge.request('/agent-mode/cycle', { method: 'POST', json: { pane } })
        expect(res.status).toBe(200)
        const body = await res.json()
        expect(body).toEqual(body.permission_mode === undefined ? { ok: true, cycled: true } : { ok: true, cycled: true, permission_mode: next })
        return body
      }
      const first = await cycle('plan')
      await screenHas(pane, 'plan mode on')
      const card = await cardWhen(pane, (c) => c.permission_mode === 'plan', 'the card in plan mode')
      expect(card.permission_mode).toBe('plan')
      const cycled = events.find((e) => e.source === 'bridge' && e.type === 'mode_cycled')
      expect(cycled?.payload).toEqual({ pane, ...(first.permission_mode ? { permission_mode: 'plan' } : {}) })
      expect(cycled!.seq).toBeGreaterThan(seqBefore)

      await cycle('bypassPermissions')
      await screenHas(pane, 'bypass permissions on')
      expect((await cardWhen(pane, (c) => c.permission_mode === 'bypassPermissions', 'bypass mode')).permission_mode).toBe('bypassPermissions')
    } finally {
      off()
    }
  })

  it('errors: 400, 401, 404, 405, 409 for another kind', async () => {
    let res = await stack.bridge.request('/agent-mode/cycle', { method: 'POST', json: {} })
    expect(res.status).toBe(400)
    expect(await res.text()).toBe('want {pane}')
    res = await stack.bridge.request('/agent-mode/cycle', { method: 'POST', body: '{not json', headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(400)
    res = await stack.bridge.request('/agent-mode/cycle', { method: 'POST', json: { pane: 'w1:p1' }, token: null })
    expect(res.status).toBe(401)
    res = await stack.bridge.request('/agent-mode/cycle', { method: 'GET' })
    expect(res.status).toBe(405)

    const shell = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id
    res = await stack.bridge.request('/agent-mode/cycle', { method: 'POST', json: { pane: shell } })
    expect(res.status).toBe(404)
    expect(await res.text()).toBe('no such agent')

    await stack.sim.request('sim.set_status', { pane_id: shell, agent: 'opencode', state: 'idle' })
    res = await stack.bridge.request('/agent-mode/cycle', { method: 'POST', json: { pane: shell } })
    expect(res.status).toBe(409)
    expect(await res.text()).toBe('mode switching not supported for this agent kind: opencode')
  })
})

describe('generic fallback', () => {
  it('a kind with no parser: parsed false, no blocked even when blocked, recent lines', async () => {
    const shell = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id
    await stack.sim.request('pane.send_text', { pane_id: shell, text: 'clear; for i in $(seq 1 20); do echo line-$i; done\r' })
    await screenHas(shell, 'line-20')
    await stack.sim.request('sim.set_status', { pane_id: shell, agent: 'amp', state: 'blocked' })
    const card = await cardWhen(shell, (c) => c.agent_status === 'blocked', 'a blocked amp card')
    expect(card.agent_kind).toBe('amp')
    expect(card.parsed).toBe(false)
    expect('blocked' in card).toBe(false)
    expect(card.transcript!.length).toBeLessThanOrEqual(12)
    expect(card.transcript).toContain('line-20')
    expect(card.detail).toBe(card.transcript!.join('\n'))
    expect(card.headline).toBe(card.transcript!.at(-1))
  })
})

describe('herdr 0.9 kinds', () => {
  it('each kind herdr 0.9 detects shows its own name on the generic card, and in the snapshot', async () => {
    // Qwen Code (0.8.2) and Muse (0.9.0) are new; the others were listed before and have no parser here.
    const kinds = ['qwen', 'muse', 'grok', 'antigravity', 'copilot', 'cursor', 'kiro']
    const panes: Record<string, string> = {}
    for (const kind of kinds) {
      panes[kind] = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id
      await stack.sim.request('sim.set_status', { pane_id: panes[kind], agent: kind, state: 'working' })
    }
    for (const kind of kinds) {
      const card = await cardWhen(panes[kind], (c) => c.agent_status === 'working', `a working ${kind} card`)
      expect([card.agent_kind, card.parsed]).toEqual([kind, false])
    }
    const snap = (await (await get('/snapshot')).json()) as GetResponses['/snapshot']
    const agents = snap.result.snapshot.agents
    expect(kinds.map((k) => agents.find((a) => a.pane_id === panes[k])?.agent)).toEqual(kinds)
  })
})

describe('card sources', () => {
  it('headline and detail come from the kind transcript summary unless blocked; ?recent=1 reads scrollback', async () => {
    // A kind contributed at runtime the way a plugin would: a transcript summary and a parser that finds nothing.
    stack.bridge.bridge.ctx.agentKinds.register(
      {
        kind: 'gemini',
        screen: { parse: () => null },
        transcript: { summary: async () => ({ headline: 'Refactoring the cache layer', detail: 'Moved the TTL logic into cache.ts.\nTests pass.', transcript: ['Moved it.'] }) },
      },
      'test',
    )
    const shell = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id
    await stack.sim.request('pane.send_text', { pane_id: shell, text: 'clear; echo "I cannot go on without an answer"\r' })
    await screenHas(shell, 'I cannot go on without an answer\n')
    await stack.sim.request('sim.set_status', { pane_id: shell, agent: 'gemini', state: 'working' })
    let card = await cardWhen(shell, (c) => c.agent_status === 'working', 'a working gemini card')
    expect(card).toMatchObject({
      agent_kind: 'gemini',
      headline: 'Refactoring the cache layer',
      detail: 'Moved the TTL logic into cache.ts.\nTests pass.',
      transcript: ['Moved it.'],
      parsed: true,
    })

    const recent = await get(`/agent-state?pane=${encodeURIComponent(shell)}&recent=1`)
    expect(recent.status).toBe(200)
    expect((await recent.json()).headline).toBe('Refactoring the cache layer')

    // Blocked on a screen the parser cannot read: still `blocked`, the question from the screen text.
    await stack.sim.request('sim.set_status', { pane_id: shell, agent: 'gemini', state: 'blocked' })
    card = await cardWhen(shell, (c) => c.agent_status === 'blocked', 'a blocked gemini card')
    expect(card.blocked).toEqual({ question: 'I cannot go on without an answer', options: [] })
    expect(card.headline).not.toBe('Refactoring the cache layer')
    expect(card.detail.split('\n')[0]).toBe('I cannot go on without an answer')
  })
})

describe('herdr down', () => {
  it('502 with herdr named for the card and the mode cycle', async () => {
    const pane = await claudePane({ start: 'idle' })
    await stack.sim.stopSession('default')
    try {
      let res = await get(`/agent-state?pane=${encodeURIComponent(pane)}`)
      expect(res.status).toBe(502)
      expect(await res.text()).toMatch(new RegExp(`^herdr agent get ${pane}: \\S`))
      res = await stack.bridge.request('/agent-mode/cycle', { method: 'POST', json: { pane } })
      expect(res.status).toBe(502)
      expect(await res.text()).toMatch(new RegExp(`^herdr agent get ${pane}: \\S`))
    } finally {
      await stack.sim.startSession('default')
    }
  })
})
