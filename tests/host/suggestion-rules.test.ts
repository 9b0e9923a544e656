import { describe, expect, it } from 'vitest'
import { buildSuggestions } from '../../plugins/suggestions/rules.ts'
import { emptyContext, type GitContext } from '../../lib/git/status.ts'
import type { HostListener } from '../../lib/ports/index.ts'

const git = (over: Partial<GitContext>): GitContext => ({ ...emptyContext(), repo: true, root: '/src/app', branch: 'main', default_branch: 'main', ...over })
const wide: HostListener = { port: 3000, bind: '*', pid: 10, proc: 'node', loopback: false, pane: 'w1:p1' }
const local: HostListener = { port: 5173, bind: '127.0.0.1', pid: 11, proc: 'vite', loopback: true, pane: 'w1:p1' }
const urlOf = (l: HostListener) => (l.loopback ? undefined : `http://10.0.0.2:${l.port}`)

describe('buildSuggestions', () => {
  it('git_conflict outranks and suppresses everything else', () => {
    const s = buildSuggestions({ pane: 'w1:p1', hasAgent: true, atPrompt: false, git: git({ operation: 'rebase', changed: 4 }), listeners: [wide], urlOf })
    expect(s).toEqual([{ kind: 'git_conflict', performer: 'app', label: 'Resolve', detail: 'rebase in progress', action: 'open_diff', params: { pane: 'w1:p1' }, rank: 30 }])
  })

  it('ranks dev_server, git_dirty, create_pr, dev_server_local and keeps at most three', () => {
    const s = buildSuggestions({
      pane: 'w1:p1',
      hasAgent: true,
      atPrompt: false,
      git: git({ branch: 'feat', remote: 'origin', ahead: 2, changed: 1 }),
      listeners: [wide, local],
      urlOf,
    })
    expect(s.map((x) => [x.kind, x.rank, x.performer, x.action])).toEqual([
      ['dev_server', 25, 'app', 'open_url'],
      ['git_dirty', 20, 'app', 'open_diff'],
      ['create_pr', 18, 'agent', 'prompt_agent'],
    ])
    expect(s[0].params).toEqual({ pane: 'w1:p1', url: 'http://10.0.0.2:3000', port: '3000' })
    expect(s[1].detail).toBe('1 file changed')
    expect(s[2].params.prompt).toContain('feat')
  })

  it('explains a loopback-only server, or links its relay', () => {
    const [note] = buildSuggestions({ pane: 'w1:p1', hasAgent: false, atPrompt: false, listeners: [local], urlOf })
    expect(note).toMatchObject({ kind: 'dev_server_local', label: ':5173 is local-only', detail: 'vite · bound to localhost', action: 'show_note', rank: 15 })
    expect(note.params.note).toContain('127.0.0.1')
    const [relayed] = buildSuggestions({ pane: 'w1:p1', hasAgent: false, atPrompt: false, listeners: [local], urlOf, relayOf: () => 'http://10.0.0.2:4000/?bridge_preview=t' })
    expect(relayed).toMatchObject({
      kind: 'dev_server_local',
      label: 'Open :5173',
      action: 'open_url',
      params: { pane: 'w1:p1', url: 'http://10.0.0.2:4000/?bridge_preview=t', port: '5173' },
    })
  })

  it('git sources need an agent; shell_idle needs no agent, a prompt and a work tree', () => {
    expect(buildSuggestions({ pane: 'w1:p2', hasAgent: false, atPrompt: true, git: git({ changed: 3, operation: 'merge' }), listeners: [], urlOf })).toEqual([
      { kind: 'shell_idle', performer: 'app', label: 'Start an agent', detail: 'idle shell in app', action: 'start_agent', params: { pane: 'w1:p2' }, rank: 10 },
    ])
    expect(buildSuggestions({ pane: 'w1:p2', hasAgent: false, atPrompt: false, git: git({}), listeners: [], urlOf })).toEqual([])
    expect(buildSuggestions({ pane: 'w1:p2', hasAgent: false, atPrompt: true, git: emptyContext(), listeners: [], urlOf })).toEqual([])
    expect(buildSuggestions({ pane: 'w1:p2', hasAgent: true, atPrompt: false, git: git({}), listeners: [], urlOf })).toEqual([])
  })
})
