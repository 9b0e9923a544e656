// Answers that name their question: POST /approve with `option` and POST /send with `seq`, against
// the simulator's fake claude (real PTYs, real bridge, real HTTP). The race: the desk answers a
// blocked agent, and the phone's stale tap on another option follows the moment the answer
// shows; nothing may reach the pane.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import type { BusEvent } from '../../core/bus.ts'

let stack: Stack
let cwd: string
const events: BusEvent[] = []

const post = async (path: string, json: unknown) => {
  const res = await stack.bridge.request(path, { method: 'POST', json })
  const type = res.headers.get('content-type') ?? ''
  return { status: res.status, body: type.startsWith('application/json') ? await res.json() : await res.text() }
}

const screenText = async (pane: string): Promise<string> => (await stack.sim.request('pane.read', { pane_id: pane, source: 'visible', format: 'text' })).read.text
const agentNow = async (pane: string) => (await stack.sim.request('agent.get', { target: pane })).agent as { agent_status: string; state_change_seq: number }
const PROMPT = 'Do you want to proceed?'

/** A fake claude blocked on its permission prompt, once the bridge's card shows all three options; and herdr's seq for it. */
async function blockedClaude(script: Record<string, unknown> = {}): Promise<{ pane: string; seq: number }> {
  const r = await stack.sim.request('sim.create_agent_pane', {
    kind: 'claude',
    cwd,
    script: {
      start: 'permission',
      work_ms: 1500,
      default_reply: 'Finished the task.',
      permission: { name: 'Bash', input: { command: 'rm -rf build', description: 'Clean' } },
      ...script,
    },
  })
  const pane = r.pane.pane_id as string
  await until(async () => {
    const res = await stack.bridge.request(`/agent-state?pane=${encodeURIComponent(pane)}`)
    const c = res.status === 200 ? await res.json() : null
    return c?.agent_status === 'blocked' && c.blocked?.options?.length >= 2
  }, 'a blocked card with its options')
  return { pane, seq: (await agentNow(pane)).state_change_seq }
}

/**
 * Polls without pause until `landed` holds, so the tap that follows is sent at once (how soon is
 * the machine's business, not an assertion: speed is measured in bench/).
 */
async function seen(landed: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) if (await landed()) return
  throw new Error(`timed out waiting for ${what}`)
}

/** After the turn ends: the agent's reply is on screen, and its input line holds nothing typed. */
async function nothingTyped(pane: string): Promise<void> {
  const text = await until(async () => {
    const t = await screenText(pane)
    return t.includes('Finished the task.') ? t : undefined
  }, 'the agent finishing its turn')
  expect(text.split('\n').filter((l) => /❯\s*\S/.test(l) && !/❯ \d\. /.test(l))).toEqual([])
}

beforeAll(async () => {
  stack = await startStack()
  cwd = join(stack.home, 'repo')
  mkdirSync(cwd, { recursive: true })
  stack.bridge.bridge.ctx.bus.subscribe({ deliver: (e) => void (e.type === 'approve_applied' && events.push(e)) })
})
afterAll(() => stack?.close())

describe('the desk answers first, the phone taps a stale option the moment the answer shows', () => {
  it('POST /approve {option, seq}: the prompt left the screen, so nothing is typed', async () => {
    const { pane, seq } = await blockedClaude()
    await stack.sim.request('pane.send_text', { pane_id: pane, text: '1' })
    await seen(async () => !(await screenText(pane)).includes(PROMPT), 'the desk answer on screen')
    const tap = post('/approve', { agent: pane, seq, option: 2 })
    const { status, body } = await tap
    expect(status).toBe(200)
    expect(body.ok).toBe(true)
    expect(body.applied).toBe(false)
    // Either herdr already moved the seq, or its status report is a moment behind the screen.
    expect([`option 2 is not on screen`, `agent is working, not blocked`, `stale seq: approve carried ${seq}, agent now at ${(await agentNow(pane)).state_change_seq}`]).toContain(
      body.reason,
    )
    expect(events.at(-1)?.payload).toMatchObject({ seq, applied: false, reason: body.reason })
    await nothingTyped(pane)
  })

  it('POST /approve {option, seq}: herdr reports the answer, so the seq is stale and nothing is typed', async () => {
    const { pane, seq } = await blockedClaude()
    await stack.sim.request('pane.send_text', { pane_id: pane, text: '1' })
    await seen(async () => (await agentNow(pane)).state_change_seq !== seq, 'the desk answer in herdr')
    const tap = post('/approve', { agent: pane, seq, option: '2' })
    const now = await agentNow(pane)
    expect(await tap).toEqual({
      status: 200,
      body: {
        ok: true,
        applied: false,
        reason: now.agent_status === 'blocked' ? `stale seq: approve carried ${seq}, agent now at ${now.state_change_seq}` : `agent is ${now.agent_status}, not blocked`,
      },
    })
    await nothingTyped(pane)
  })

  it('POST /send {text, seq}: 409 with a one-line reason, nothing typed', async () => {
    const { pane, seq } = await blockedClaude()
    await stack.sim.request('pane.send_text', { pane_id: pane, text: '1' })
    await seen(async () => (await agentNow(pane)).state_change_seq !== seq, 'the desk answer in herdr')
    const tap = post('/send', { pane, text: '2\n', seq })
    const { status, body } = await tap
    expect(status).toBe(409)
    expect(body).toMatch(new RegExp(`^stale seq: send carried ${seq}, agent now at \\d+$`))
    await nothingTyped(pane)
  })
})

describe('POST /approve with option', () => {
  it('chooses a numbered option that is on screen at that seq', async () => {
    const { pane, seq } = await blockedClaude()
    expect(await post('/approve', { agent: pane, seq, option: 3 })).toEqual({ status: 200, body: { ok: true, applied: true } })
    await until(async () => (await screenText(pane)).includes('User rejected the tool use'), 'option 3 (reject) chosen')
    expect(events.at(-1)?.payload).toMatchObject({ seq, applied: true })
  })

  it('chooses the highlighted default by index with the confirm key, on a question panel', async () => {
    const { pane, seq } = await blockedClaude({
      start: 'question',
      question: { header: 'Database', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
    })
    expect(await post('/approve', { agent: pane, seq, option: 2 })).toEqual({ status: 200, body: { ok: true, applied: true } })
    await until(async () => (await screenText(pane)).includes('Database: SQLite'), 'SQLite chosen')
  })

  it('applies nothing for an option that is not on screen, a key no option has, or a malformed option', async () => {
    const { pane, seq } = await blockedClaude()
    const before = await screenText(pane)
    expect(await post('/approve', { agent: pane, seq, option: 7 })).toEqual({ status: 200, body: { ok: true, applied: false, reason: 'option 7 is not on screen' } })
    expect(await post('/approve', { agent: pane, seq, option: 'esc' })).toEqual({ status: 200, body: { ok: true, applied: false, reason: 'option esc is not on screen' } })
    expect(await post('/approve', { agent: pane, seq, option: true })).toEqual({
      status: 200,
      body: { ok: true, applied: false, reason: "option must be the card's 1-based index or an option's key" },
    })
    expect(await post('/approve', { agent: pane, seq, option: 0 })).toEqual({
      status: 200,
      body: { ok: true, applied: false, reason: "option must be the card's 1-based index or an option's key" },
    })
    // A stale seq is refused before the option is looked at, as without one.
    expect(await post('/approve', { agent: pane, seq: seq - 1, option: 1 })).toEqual({
      status: 200,
      body: { ok: true, applied: false, reason: `stale seq: approve carried ${seq - 1}, agent now at ${seq}` },
    })
    expect(await screenText(pane)).toBe(before)
    expect((await agentNow(pane)).agent_status).toBe('blocked')
  })
})

describe('POST /send with seq', () => {
  it('types when the seq still matches', async () => {
    const { pane, seq } = await blockedClaude()
    expect(await post('/send', { pane, text: '3\n', seq })).toEqual({ status: 200, body: { ok: true } })
    await until(async () => (await screenText(pane)).includes('User rejected the tool use'), 'option 3 typed')
  })

  it('refuses a malformed seq with 400 and a pane without an agent with 409, typing nothing', async () => {
    const { pane, seq } = await blockedClaude()
    expect(await post('/send', { pane, text: '3\n', seq: 'soon' })).toEqual({ status: 400, body: "seq must be a whole number: the agent's state_change_seq" })
    expect(await post('/send', { pane, text: '3\n', seq: -1 })).toEqual({ status: 400, body: "seq must be a whole number: the agent's state_change_seq" })
    expect(await post('/send', { pane, key: 'esc', seq: seq + 5 })).toEqual({ status: 409, body: `stale seq: send carried ${seq + 5}, agent now at ${seq}` })
    expect((await agentNow(pane)).agent_status).toBe('blocked')
    const shell = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    expect(await post('/send', { pane: shell, text: 'echo hi\n', seq: 1 })).toEqual({ status: 409, body: 'no agent in this pane: a reply with seq needs one' })
    // Without seq, a send is exactly as before.
    expect(await post('/send', { pane: shell, text: 'echo $((6*7))\n' })).toEqual({ status: 200, body: { ok: true } })
    await until(async () => (await screenText(shell)).includes('42'), 'the unguarded send typed')
  })
})
