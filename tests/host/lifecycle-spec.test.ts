import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSim, type Sim } from '../harness/sim.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'

/**
 * Spec 1 §4.5: `/agent/start` waits up to 8 s for the target pane to reach an interactive prompt
 * "(every targeting form); a pane not at a prompt gives 409" — a pane the call created itself
 * included. Every shell here starts in posix mode and sources $ENV, which sleeps, so a new pane
 * does not get to its prompt in time (the simulator fixes PS1 and PROMPT_COMMAND, not these).
 */
describe('/agent/start into a new pane that never reaches a prompt', () => {
  let home: string
  let sim: Sim
  let bridge: TestBridge
  beforeAll(async () => {
    home = realpathSync(mkdtempSync(join(tmpdir(), 'lifecycle-spec-')))
    writeFileSync(join(home, 'slow-start.sh'), 'sleep 120\n')
    sim = await startSim({ home, testMode: true, env: { POSIXLY_CORRECT: '1', ENV: join(home, 'slow-start.sh') } })
    bridge = await startBridge({ home, env: { PATH: sim.clientEnv().PATH } })
    await sim.request('workspace.create', { cwd: home, focus: true })
  })
  afterAll(async () => {
    await bridge?.close().catch(() => {})
    await sim?.stop().catch(() => {})
    rmSync(home, { recursive: true, force: true })
  })

  it('answers 409 in plain text, naming what runs, and starts no agent', async () => {
    const res = await bridge.request('/agent/start', { method: 'POST', json: { kind: 'claude', workspace_id: 'w1' } })
    const body = await res.text()
    expect([res.status, res.headers.get('content-type')?.split(';')[0]]).toEqual([409, 'text/plain'])
    expect(body).toMatch(/^pane w1:p\d+ is busy running sleep 120$/)
    const pane = body.split(' ')[1]
    expect((await sim.call('agent.get', { target: pane })).result?.agent).toBeUndefined()
  })
})
