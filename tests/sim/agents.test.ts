// Scripted fake agents in real panes: status reporting, transcripts, per-pane status events,
// seen/done semantics, agent.start/prompt/wait/explain.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { claudeProjectDir } from '../harness/fake-agents/transcript.ts'
import { until } from '../harness/wait.ts'
import { useSim } from './helpers.ts'
import type { AgentInfo } from '../../lib/herdr/api.ts'

const T = 30000

describe('fake agents', () => {
  const { sim, home } = useSim()

  const agent = async (target: string): Promise<AgentInfo> => (await sim().request('agent.get', { target })).agent
  const screen = async (pane: string): Promise<string> => (await sim().request('pane.read', { pane_id: pane, source: 'visible' })).read.text

  it(
    'reports claude status and session id; its transcript appears where claude keeps it',
    async () => {
      const sid = '0b5c3e2a-1111-4222-8333-944445555666'
      const created = await sim().request('sim.create_agent_pane', { cwd: home(), script: { session_id: sid, turns: [{ reply: 'Hello from the fake agent.' }] } })
      const pane = created.pane.pane_id
      expect(created.pane.agent).toBe('claude')
      const info = await until(async () => {
        const a = await agent(pane)
        return a.agent_status === 'idle' ? a : undefined
      }, 'idle')
      expect(info.agent_session).toEqual({ source: 'herdr:claude', agent: 'claude', kind: 'id', value: sid })
      expect(await screen(pane)).toMatch(/^❯/m)

      const sub = await sim().subscribe([{ type: 'pane.agent_status_changed', pane_id: pane }])
      await sim().request('pane.send_input', { pane_id: pane, text: 'say hello', keys: ['Enter'] })
      const working = await sub.next((e) => e.data.agent_status === 'working')
      expect(working).toEqual({ event: 'pane.agent_status_changed', data: { pane_id: pane, workspace_id: created.pane.workspace_id, agent_status: 'working', agent: 'claude' } })
      await sub.next((e) => e.data.agent_status === 'idle')
      sub.close()

      const file = path.join(claudeProjectDir(home(), home()), `${sid}.jsonl`)
      const entries = await until(() => {
        if (!fs.existsSync(file)) return undefined
        const l = fs
          .readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((x) => JSON.parse(x))
        return l.length >= 2 ? l : undefined
      }, 'two transcript entries')
      expect(entries[0]).toMatchObject({ type: 'user', sessionId: sid, cwd: home(), parentUuid: null, message: { role: 'user', content: [{ type: 'text', text: 'say hello' }] } })
      expect(entries[1]).toMatchObject({
        type: 'assistant',
        parentUuid: entries[0].uuid,
        message: { role: 'assistant', content: [{ type: 'text', text: 'Hello from the fake agent.' }] },
      })
      expect(await screen(pane)).toContain('⏺ Hello from the fake agent.')
    },
    T,
  )

  it(
    'starts blocked on a permission prompt; explain names the category; Enter approves',
    async () => {
      const sid = '1b5c3e2a-1111-4222-8333-944445555666'
      const created = await sim().request('sim.create_agent_pane', {
        cwd: home(),
        script: {
          session_id: sid,
          start: 'permission',
          permission: { name: 'Bash', input: { command: 'rm -rf build', description: 'Remove build output' }, output: 'removed', category: 'dangerous_command_approval' },
        },
      })
      const pane = created.pane.pane_id
      await until(async () => (await agent(pane)).agent_status === 'blocked', 'blocked')
      const text = await screen(pane)
      expect(text).toContain('Do you want to proceed?')
      expect(text).toMatch(/❯ 1\. Yes/)
      expect(text).toContain("2. Yes, and don't ask again")
      expect(text).toContain('3. No, and tell Claude what to do differently (esc)')
      const explain = (await sim().request('agent.explain', { target: pane })).explain
      const firstMatched = explain.evaluated_rules.find((r: { matched: boolean }) => r.matched)
      expect(firstMatched).toMatchObject({ id: 'dangerous_command_approval', matched: true, state: 'blocked' })
      expect(explain.evaluated_rules.some((r: { id: string; matched: boolean }) => r.id === 'bash_permission_prompt' && r.matched)).toBe(true)

      await sim().request('pane.send_keys', { pane_id: pane, keys: ['Enter'] })
      // The pane is not in the focused tab, so finishing work lands as `done`, not `idle`.
      await until(async () => (await agent(pane)).agent_status === 'done', 'done after approval')
      const file = path.join(claudeProjectDir(home(), home()), `${sid}.jsonl`)
      const entries = fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((x) => JSON.parse(x))
      expect(entries[0].message.content[0]).toMatchObject({ type: 'tool_use', name: 'Bash', input: { command: 'rm -rf build' } })
      expect(entries[1].message.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: entries[0].message.content[0].id, is_error: false })
    },
    T,
  )

  it(
    'Esc declines, shift+tab cycles the permission mode line, /exit releases the agent',
    async () => {
      const created = await sim().request('sim.create_agent_pane', { cwd: home(), script: { start: 'permission' } })
      const pane = created.pane.pane_id
      await until(async () => (await agent(pane)).agent_status === 'blocked', 'blocked')
      await sim().request('pane.send_keys', { pane_id: pane, keys: ['esc'] })
      await until(async () => (await agent(pane)).agent_status === 'done', 'done after decline')
      expect(await screen(pane)).toContain('User rejected the tool use')
      await sim().request('pane.send_text', { pane_id: pane, text: '\x1b[Z' })
      await until(async () => (await screen(pane)).includes('⏵⏵ accept edits on (shift+tab to cycle)'), 'accept edits')
      await sim().request('pane.send_keys', { pane_id: pane, keys: ['shift+tab'] })
      await until(async () => (await screen(pane)).includes('plan mode on'), 'plan mode')

      const sub = await sim().subscribe([{ type: 'pane.agent_detected' }])
      await sim().request('pane.send_input', { pane_id: pane, text: '/exit', keys: ['Enter'] })
      const released = await sub.next((e) => e.data.pane_id === pane && e.data.released === true, 15000)
      expect(released.data).toMatchObject({ type: 'pane_agent_detected', agent: 'claude', released: true })
      expect((await sim().call('agent.get', { target: pane })).error?.code).toBe('agent_not_found')
      await until(async () => /^\$ ?$/m.test(await screen(pane)), 'shell prompt back')
      sub.close()
    },
    T,
  )

  it(
    'idle after work in a background tab is done until the tab is looked at; only per-pane entries see the flip',
    async () => {
      const ws = await sim().request('workspace.create', { cwd: home() })
      const bg = await sim().request('tab.create', { workspace_id: ws.workspace.workspace_id })
      const pane = bg.root_pane.pane_id
      const before = (await sim().request('agent.list', {})).agents
      await sim().request('sim.set_status', { pane_id: pane, state: 'working', agent: 'claude' })
      const sub = await sim().subscribe([{ type: 'pane.agent_status_changed', pane_id: pane }])
      await sim().request('sim.set_status', { pane_id: pane, state: 'idle' })
      await sub.next((e) => e.data.agent_status === 'done')
      const a = await agent(pane)
      expect(a.agent_status).toBe('done')
      const seqs = before.map((x: { state_change_seq: number }) => x.state_change_seq)
      expect(a.state_change_seq).toBeGreaterThan(Math.max(0, ...seqs))
      expect((await sim().request('tab.get', { tab_id: bg.tab.tab_id })).tab.agent_status).toBe('done')
      await sim().request('tab.focus', { tab_id: bg.tab.tab_id })
      const flip = await sub.next((e) => e.data.agent_status === 'idle')
      expect(flip.data.pane_id).toBe(pane)
      // The seen flip changes no underlying state, so state_change_seq stays.
      expect((await agent(pane)).state_change_seq).toBe(a.state_change_seq)
      sub.close()
    },
    T,
  )

  it(
    'events.wait answers at once when the pane already has the status',
    async () => {
      const ws = await sim().request('workspace.create', {})
      await sim().request('sim.set_status', { pane_id: ws.root_pane.pane_id, state: 'blocked', agent: 'claude' })
      const r = await sim().request('events.wait', {
        match_event: { event: 'pane_agent_status_changed', pane_id: ws.root_pane.pane_id, agent_status: 'blocked' },
        timeout_ms: 5000,
      })
      expect(r.event).toMatchObject({ event: 'pane_agent_status_changed', data: { type: 'pane_agent_status_changed', agent_status: 'blocked' } })
      const unsupported = await sim().call('events.wait', { match_event: { event: 'pane_exited', pane_id: ws.root_pane.pane_id } })
      expect(unsupported.error?.code).toBe('unsupported_event_wait_match')
    },
    T,
  )

  it(
    'agent.start launches the fake claude; agent.prompt and agent.wait drive it by name',
    async () => {
      const ws = await sim().request('workspace.create', { cwd: home() })
      const pane = ws.root_pane.pane_id
      await until(async () => {
        const info = (await sim().request('pane.process_info', { pane_id: pane })).process_info
        return info.foreground_process_group_id === info.shell_pid
      }, 'shell in the foreground')
      const started = await sim().request('agent.start', { name: 'reviewer', kind: 'claude', pane_id: pane })
      expect(started.argv).toEqual(['claude'])
      expect(started.agent).toMatchObject({ name: 'reviewer', launch_pending: true, pane_id: pane })
      const busy = await sim().call('agent.start', { name: 'other', kind: 'claude', pane_id: pane })
      expect(busy.error?.code).toBe('agent_pane_busy')
      const ready = await until(async () => {
        const a = await agent('reviewer')
        return a.interactive_ready ? a : undefined
      }, 'interactive_ready')
      expect(ready.launch_pending).toBeUndefined()
      expect(ready.agent).toBe('claude')
      const prompted = await sim().request('agent.prompt', { target: 'reviewer', text: 'review please', wait: { until: ['idle', 'done'], timeout_ms: 15000 } }, 'default', {
        timeoutMs: 20000,
      })
      expect(prompted.agent.state_change_seq).toBeGreaterThan(ready.state_change_seq!)
      const waited = await sim().request('agent.wait', { target: 'reviewer', until: ['idle', 'done'], timeout_ms: 5000 })
      expect(waited.agent.name).toBe('reviewer')
      const timedOut = await sim().call('agent.wait', { target: 'reviewer', until: ['blocked'], timeout_ms: 300 })
      expect(timedOut.error?.code).toBe('timeout')
      expect((await sim().call('agent.prompt', { target: 'reviewer', text: '  ' })).error?.code).toBe('empty_agent_prompt')
    },
    T,
  )

  it(
    'server.agent_manifests lists claude',
    async () => {
      const r = await sim().request('server.agent_manifests', {})
      expect(r.type).toBe('agent_manifest_status')
      expect(r.manifests.map((m: { agent: string }) => m.agent)).toContain('claude')
    },
    T,
  )
})
