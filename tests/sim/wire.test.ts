// Wire contract: one request per connection, first line only, id "" on parse failures,
// subscription ack and hang-up rules (protocol doc 1.3, 1.4, 10.1).
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { assertSchema, simProfile, startSim } from '../harness/sim.ts'
import { lines, rawExchange, useSim } from './helpers.ts'

const T = 20000

describe('wire rules', () => {
  const { sim } = useSim({ sessions: ['default', 'work'] })

  it(
    'ping reports the version and protocol of the herdr played (0.8.0 / 20, 0.9.1 / 22) and capabilities',
    async () => {
      const reply = await sim().call('ping', {})
      expect(reply).toEqual({
        id: reply.id,
        result: { type: 'pong', version: simProfile().version, protocol: simProfile().protocol, capabilities: { live_handoff: true, detached_server_daemon: true } },
      })
      expect(Object.keys(reply.result)[0]).toBe('type')
    },
    T,
  )

  it(
    'answers one line, ignores a second request line and closes',
    async () => {
      const text = await rawExchange(sim().socketPath(), '{"id":"a","method":"ping","params":{}}\n{"id":"b","method":"ping","params":{}}\n')
      const replies = lines(text)
      expect(replies).toHaveLength(1)
      expect(replies[0].id).toBe('a')
      assertSchema('success_response', replies[0])
    },
    T,
  )

  it(
    'still replies when the client half-closes after the newline',
    async () => {
      const replies = lines(await rawExchange(sim().socketPath(), '{"id":"h","method":"ping","params":{}}\n', { endAfterWrite: true }))
      expect(replies[0].result.type).toBe('pong')
    },
    T,
  )

  it.each([
    ['bad JSON', '{"id":"x","method":'],
    ['unknown method', '{"id":"x","method":"pane.fly","params":{}}'],
    ['numeric id', '{"id":1,"method":"ping","params":{}}'],
    ['missing params', '{"id":"x","method":"ping"}'],
    ['missing required param', '{"id":"x","method":"pane.get","params":{}}'],
    ['mistyped param', '{"id":"x","method":"pane.send_text","params":{"pane_id":"w1:p1","text":5}}'],
    ['bad enum', '{"id":"x","method":"pane.read","params":{"pane_id":"w1:p1","source":"everything"}}'],
    ['unknown subscription type', '{"id":"x","method":"events.subscribe","params":{"subscriptions":[{"type":"pane.nope"}]}}'],
  ])(
    '%s → invalid_request with id ""',
    async (_name, line) => {
      const replies = lines(await rawExchange(sim().socketPath(), `${line}\n`))
      expect(replies).toHaveLength(1)
      expect(replies[0].id).toBe('')
      expect(replies[0].error.code).toBe('invalid_request')
      expect(replies[0].error.message).toMatch(/^invalid request: /)
      assertSchema('error_response', replies[0])
    },
    T,
  )

  it(
    'closes without a reply on an empty line',
    async () => {
      expect(await rawExchange(sim().socketPath(), '   \n')).toBe('')
    },
    T,
  )

  it(
    'uses resource-specific error codes with the request id',
    async () => {
      expect((await sim().call('pane.get', { pane_id: 'w1:p9' })).error).toEqual({ code: 'pane_not_found', message: 'pane w1:p9 not found' })
      expect((await sim().call('agent.get', { target: 'nobody' })).error).toEqual({ code: 'agent_not_found', message: 'agent target nobody not found' })
      expect((await sim().call('workspace.get', { workspace_id: 'w7' })).error?.code).toBe('workspace_not_found')
      expect((await sim().call('tab.get', { tab_id: 'w7:t1' })).error?.code).toBe('tab_not_found')
    },
    T,
  )

  it(
    'acks a subscription, then pushes; a byte from the client ends it silently',
    async () => {
      const sub = await sim().subscribe([{ type: 'workspace.created' }])
      expect(sub.ack.result).toEqual({ type: 'subscription_started' })
      const created = await sim().request('workspace.create', {})
      const ev = await sub.next((e) => e.event === 'workspace_created' && e.data.workspace.workspace_id === created.workspace.workspace_id)
      expect(ev.data.type).toBe('workspace_created')
      sub.close()
      await sim().request('workspace.close', { workspace_id: created.workspace.workspace_id })
    },
    T,
  )

  it(
    'ends a subscription when the client sends a byte or EOF',
    async () => {
      for (const how of ['byte', 'eof'] as const) {
        const s = net.connect(sim().socketPath())
        let got = ''
        const closed = new Promise<void>((resolve) => s.on('close', () => resolve()))
        s.on('data', (d) => {
          got += d.toString()
          if (got.includes('subscription_started')) {
            if (how === 'byte') s.write('x')
            else s.end()
          }
        })
        s.write('{"id":"s","method":"events.subscribe","params":{"subscriptions":[{"type":"pane.created"}]}}\n')
        await closed
        const replies = lines(got)
        // Only the ack (plus buffered history); never an error line.
        expect(replies[0]).toEqual({ id: 's', result: { type: 'subscription_started' } })
        assertSchema('success_response', replies[0])
        for (const pushed of replies.slice(1)) assertSchema('event', pushed)
        expect(replies.every((r) => r.error === undefined)).toBe(true)
      }
    },
    T,
  )

  it(
    'rejects a per-pane probe on an unknown pane with id <id>:sub:<i>:probe',
    async () => {
      const sub = await sim().subscribe([{ type: 'pane.created' }, { type: 'pane.agent_status_changed', pane_id: 'w9:p9' }], 'default', 'sub_1')
      expect(sub.ack).toEqual({ id: 'sub_1:sub:1:probe', error: { code: 'pane_not_found', message: 'pane w9:p9 not found' } })
      await sub.closed
    },
    T,
  )

  it(
    'keeps sessions independent, each with its own socket',
    async () => {
      const before = (await sim().request('session.snapshot', {}, 'work')).snapshot
      await sim().request('workspace.create', {}, 'work')
      const after = (await sim().request('session.snapshot', {}, 'work')).snapshot
      expect(after.workspaces.length).toBe(before.workspaces.length + 1)
      // Ids are per session: the first workspace of "work" is w1 whatever "default" did.
      expect(after.workspaces[0].workspace_id).toBe('w1')
      expect(fs.statSync(sim().socketPath('work')).mode & 0o777).toBe(0o600)
    },
    T,
  )

  it(
    'stops and restarts a session socket in place',
    async () => {
      await sim().stopSession('work')
      await expect(sim().call('ping', {}, 'work')).rejects.toThrow()
      await sim().startSession('work')
      expect((await sim().request('ping', {}, 'work')).type).toBe('pong')
    },
    T,
  )
})

describe('test-only methods', () => {
  it('refuses sim.* as an unknown method without --test-mode', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'herdr-sim-test-'))
    const sim = await startSim({ home })
    try {
      const reply = await sim.call('sim.set_status', { pane_id: 'w1:p1', state: 'idle' })
      expect(reply).toEqual({ id: '', error: { code: 'invalid_request', message: 'invalid request: unknown variant `sim.set_status`' } })
    } finally {
      await sim.stop()
      fs.rmSync(home, { recursive: true, force: true })
    }
    expect(fs.existsSync(sim.socketPath())).toBe(false)
  }, 30000)
})
