import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createAgentKindRegistry, defineAgentKind } from '../../lib/agent-kinds.ts'
import { defaultPlugins } from '../../index.ts'
import { defineConfig } from '../../core/plugin.ts'
import kindCodex from '../../plugins/kind-codex/index.ts'
import { startStack, type Stack } from '../harness/stack.ts'
import { meta, userText, writeRollout } from './codex-fixture.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

describe('the kind registry', () => {
  it('merges capabilities of one kind from several plugins; the same one twice, or an unknown one, is a start-up error', () => {
    const r = createAgentKindRegistry()
    r.register(defineAgentKind({ kind: 'Thing', screen: { confirmKey: 'y' } }), 'a')
    r.register(defineAgentKind({ kind: 'thing', usage: async () => ({ available: false }) }), 'b')
    expect(Object.keys(r.get(' THING ')!).sort()).toEqual(['kind', 'screen', 'usage'])
    expect(() => r.register(defineAgentKind({ kind: 'thing', screen: {} }), 'c')).toThrow('agent kind thing: screen is contributed by both plugin a and plugin c')
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a capability the AgentKind type does not have, as a JavaScript plugin could pass
    expect(() => r.register({ kind: 'thing', parseScreen: () => null } as any, 'd')).toThrow(
      'agent kind thing (plugin d): unknown capability parseScreen; want one of screen, question, transcript, commands, usage, start',
    )
    expect(() => r.register({ kind: ' ' }, 'e')).toThrow('plugin e: an agent kind needs a non-empty kind id')
  })
})

describe('removing a kind line removes exactly that kind', () => {
  let stack: Stack
  beforeAll(async () => {
    stack = await startStack({ bridge: { user: defineConfig({ plugins: defaultPlugins.filter((p) => p !== kindCodex) }) } })
  }, 60_000)
  afterAll(async () => stack?.close())

  it('codex is gone from /agent-kinds and its transcript is refused; claude still streams', async () => {
    const kinds = (await (await stack.bridge.request('/agent-kinds')).json()).kinds.map((k: GetResponses['/agent-kinds']['kinds'][number]) => k.kind)
    expect(kinds).toEqual(['claude', 'generic', 'hermes', 'opencode', 'pi'])
    const cwd = join(stack.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    const id = '0199a0c1-0000-7000-8000-0000000000aa'
    writeRollout(join(stack.home, '.codex'), id, [meta(id, cwd), userText(1, 'hi')])
    const pane = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    await reportBusyAgent(stack.sim, pane, { source: 'herdr:codex', agent: 'codex', state: 'working', agent_session_id: id })
    const r = await fetch(`${stack.bridge.url}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`)
    expect([r.status, await r.text()]).toEqual([404, 'transcript not available: agent kind codex not supported'])
    const card = await (await stack.bridge.request(`/agent-state?pane=${encodeURIComponent(pane)}`)).json()
    // Without kind-codex its prompt parser is gone too: the generic card.
    expect(card.parsed).toBe(false)
  })
})
