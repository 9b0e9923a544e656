// herdr 0.8.2 and later refuse `agent prompt` to an agent waiting at an approval or question
// dialog (`agent_blocked`), typing nothing. The bridge says so in words: a start's opening prompt
// reports it in prompt_error (the agent did start), and any route herdr answers that way is a 409.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createConsola } from 'consola'
import { startHostStack, type HostStack } from './helpers.ts'
import { AGENT_BLOCKED, HerdrError } from '../../core/herdr/index.ts'
import { errorToResponse } from '../../core/http.ts'

describe('a prompt to a blocked agent (simulator in herdr 0.9 mode)', () => {
  let st: HostStack
  beforeAll(async () => {
    const script = join(process.env.TMPDIR ?? '/tmp', `blocked-${process.pid}.json`)
    // The fake claude opens at a permission dialog: blocked from its first screen.
    writeFileSync(script, JSON.stringify({ start: 'permission' }))
    st = await startHostStack({ simEnv: { HERDR_SIM_MODE: '0.9', FAKE_AGENT_SCRIPT: script } })
    await st.sim.request('workspace.create', { cwd: st.home, focus: true })
  })
  afterAll(() => st?.close())

  it('the agent starts, the opening prompt is refused with the reason, and nothing is typed', async () => {
    const r = await st.post('/agent/start', { kind: 'claude', pane_id: 'w1:p1', prompt: 'say hello' })
    expect(r).toMatchObject({
      status: 200,
      body: { pane_id: 'w1:p1', kind: 'claude', created_pane: false, prompt_sent: false, prompt_error: `agent_blocked: ${AGENT_BLOCKED}` },
    })
    const agent = (await st.sim.call('agent.get', { target: 'w1:p1' })).result?.agent
    expect(agent.agent_status).toBe('blocked')
    const screen = (await st.sim.request('pane.read', { pane_id: 'w1:p1', source: 'recent', lines: 200 })).read.text as string
    expect(screen).not.toContain('say hello')
  })
})

describe('agent_blocked from herdr on any route', () => {
  it('is a 409 with one line, not a 502', async () => {
    const res = errorToResponse(new HerdrError('agent_blocked', 'agent in pane w1:p1 is waiting at an approval or question dialog'), 'text', createConsola(), 'test')
    expect([res.status, await res.text()]).toEqual([409, AGENT_BLOCKED])
  })
})
