import { describe, expect, it } from 'vitest'
import { planSend, MAX_SEND_TEXT } from '../../plugins/control/send.ts'
import { approveOutcome, parseSeq } from '../../plugins/control/approve.ts'
import { prepareCall } from '../../plugins/herdr-proxy/allowlist.ts'
import { HttpError } from '../../core/respond.ts'

const text = (t: string) => ({ method: 'pane.send_text', params: { text: t } })
const keys = (...k: string[]) => ({ method: 'pane.send_keys', params: { keys: k } })

describe('/send plan', () => {
  it('types text literally; a trailing CR or LF submits with a separate Enter', () => {
    expect(planSend({ text: 'ls' })).toEqual({ steps: [text('ls')] })
    expect(planSend({ text: 'echo hi\n' })).toEqual({ steps: [text('echo hi'), keys('enter')] })
    expect(planSend({ text: 'fix it\r' })).toEqual({ steps: [text('fix it'), keys('enter')] })
    expect(planSend({ text: '2\r\n\n' })).toEqual({ steps: [text('2'), keys('enter')] })
    expect(planSend({ text: 'a\nb\n' })).toEqual({ steps: [text('a\nb'), keys('enter')] })
  })

  it('sends "\\r" alone as a bare Enter', () => {
    expect(planSend({ text: '\r' })).toEqual({ steps: [keys('enter')] })
    expect(planSend({ text: '\n' })).toEqual({ steps: [keys('enter')] })
  })

  it('sends one key; text and key together are refused; an unknown key is a 400 naming it', () => {
    expect(planSend({ key: 'esc' })).toEqual({ steps: [keys('esc')] })
    expect(planSend({ key: 'ctrl+c', text: 'ignored' })).toEqual({ status: 400, error: 'want {pane, text} or {pane, key}, not both' })
    expect(planSend({ key: 'ctrl+c', text: '' })).toEqual({ steps: [keys('ctrl+c')] })
    expect(planSend({ key: '^d' })).toEqual({ steps: [keys('ctrl+d')] })
    expect(planSend({ key: 'home' })).toEqual({ status: 400, error: 'unknown key: "home"' })
    expect(planSend({ key: 'pagedown' })).toEqual({ status: 400, error: 'unknown key: "pagedown"' })
  })

  it('refuses neither text nor key, and oversized text', () => {
    expect(planSend({})).toEqual({ status: 400, error: 'want {pane, text} or {pane, key}' })
    expect(planSend({ text: '', key: '' })).toEqual({ status: 400, error: 'want {pane, text} or {pane, key}' })
    expect(planSend({ text: 'x'.repeat(MAX_SEND_TEXT + 1) })).toEqual({ status: 413, error: `text over ${MAX_SEND_TEXT} bytes` })
  })
})

describe('/approve outcome', () => {
  it('has the four outcomes with the exact reasons', () => {
    expect(approveOutcome({ agent_status: 'blocked', state_change_seq: 7 }, 7)).toEqual({ applied: true, reason: '' })
    expect(approveOutcome({ agent_status: 'working', state_change_seq: 7 }, 7)).toEqual({ applied: false, reason: 'agent is working, not blocked' })
    expect(approveOutcome({ agent_status: 'blocked', state_change_seq: 9 }, 7)).toEqual({ applied: false, reason: 'stale seq: approve carried 7, agent now at 9' })
    expect(approveOutcome(null, 7)).toEqual({ applied: false, reason: 'no such agent' })
    expect(approveOutcome({}, 0)).toEqual({ applied: false, reason: 'agent is unknown, not blocked' })
  })

  it('reads the seq as an integer or a numeric string, else 0', () => {
    expect([parseSeq(5), parseSeq('12'), parseSeq(undefined), parseSeq('x'), parseSeq(1.5), parseSeq(null)]).toEqual([5, 12, 0, 0, 0, 0])
  })
})

describe('/herdr call preparation', () => {
  const refused = (body: unknown) => {
    try {
      prepareCall(body)
    } catch (err) {
      return [(err as HttpError).status, err instanceof Error ? err.message : '']
    }
    return 'accepted'
  }

  it('allows exactly the spec allowlist', () => {
    for (const m of [
      'session.snapshot',
      'workspace.list',
      'workspace.get',
      'worktree.list',
      'tab.list',
      'tab.get',
      'pane.list',
      'pane.get',
      'agent.list',
      'agent.get',
      'worktree.create',
      'worktree.open',
      'worktree.remove',
      'workspace.create',
      'tab.create',
      'tab.close',
      'tab.focus',
      'tab.rename',
      'pane.split',
      'pane.close',
      'pane.focus',
      'agent.focus',
    ])
      expect([m, refused({ method: m, params: {} })]).toEqual([m, 'accepted'])
    for (const m of [
      'server.stop',
      'server.reload_config',
      'pane.send_text',
      'pane.send_keys',
      'agent.prompt',
      'events.subscribe',
      'agent.view.set',
      'agent.view.clear',
      'pane.rename',
      'ping',
      'workspace.close',
      'agent.start',
      'pane.read',
      'toString',
      '__proto__',
    ])
      expect(refused({ method: m, params: {} })).toEqual([403, `method not allowed: ${m}`])
  })

  it('refuses malformed bodies with want {method, params}', () => {
    for (const b of [null, [], 'x', {}, { method: '' }, { method: '  ' }, { method: 3 }, { method: 'pane.get', params: [] }, { method: 'pane.get', params: 'x' }])
      expect(refused(b)).toEqual([400, 'want {method, params}'])
  })

  it('defaults focus to false on writes that take it, keeps an explicit focus, and never adds it elsewhere', () => {
    expect(prepareCall({ method: 'tab.create', params: { workspace_id: 'w1' } })).toEqual({
      method: 'tab.create',
      params: { workspace_id: 'w1', focus: false },
      session: 'default',
    })
    expect(prepareCall({ method: 'pane.split', params: { direction: 'right', focus: true } }).params).toEqual({ direction: 'right', focus: true })
    expect(prepareCall({ method: 'workspace.create' }).params).toEqual({ focus: false })
    expect(prepareCall({ method: 'worktree.open', params: { cwd: '/r', path: '/r' } }).params).toEqual({ cwd: '/r', path: '/r', focus: false })
    expect(prepareCall({ method: 'worktree.create', params: null }).params).toEqual({ focus: false })
    expect(prepareCall({ method: 'pane.close', params: { pane_id: 'w1:p1' } }).params).toEqual({ pane_id: 'w1:p1' })
    expect(prepareCall({ method: 'tab.focus', params: { tab_id: 'w1:t1' } }).params).toEqual({ tab_id: 'w1:t1' })
  })

  it('infers the session from ids, honours an explicit one, and refuses contradictions', () => {
    expect(prepareCall({ method: 'pane.get', params: { pane_id: 'work/w1:p2' } })).toEqual({ method: 'pane.get', params: { pane_id: 'w1:p2' }, session: 'work' })
    expect(prepareCall({ method: 'agent.get', params: { target: 'work/w1:p2' } }).session).toBe('work')
    expect(prepareCall({ method: 'workspace.create', params: { cwd: '/x' }, session: 'work' }).session).toBe('work')
    expect(refused({ method: 'pane.get', params: { pane_id: 'work/w1:p2' }, session: 'other' })).toEqual([400, 'session other contradicts ids of session work'])
    expect(refused({ method: 'pane.split', params: { target_pane_id: 'a/w1:p1', workspace_id: 'b/w1', direction: 'down' } })[0]).toBe(400)
    expect(refused({ method: 'pane.get', params: {}, session: 5 })).toEqual([400, 'session: want a string'])
  })
})

import { answerForSend } from '../../plugins/control/question.ts'

describe('/send through a managed question service', () => {
  it('maps esc to a dismissal, a bare number to an option, other text to a free answer', () => {
    expect(answerForSend({ key: 'esc' })).toEqual({ dismiss: true })
    expect(answerForSend({ key: 'enter' })).toBeNull()
    expect(answerForSend({ text: '2\n' })).toEqual({ index: 2 })
    expect(answerForSend({ text: 'use the second approach\r' })).toEqual({ text: 'use the second approach' })
    expect(answerForSend({ text: '\r' })).toBeNull()
  })
})
