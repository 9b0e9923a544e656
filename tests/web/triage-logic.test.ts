// The triage rules the web app shows: who needs you, in what order the walk visits them, and the
// text cleaning of card headlines and alerts (TUI glyphs, a repeated headline).
import { describe, expect, it } from 'vitest'
import { detailWithoutHeadline, longestWaitingFirst, needsYouCount, nextBlocked, plainText, sinceText, unseen, walkKey } from '../../plugins/web/app/src/lib/triage.ts'
import { agentTitle, type Agent } from '../../plugins/web/app/src/lib/inbox.ts'
import { pushAction } from '../../plugins/web/app/src/lib/push-message.ts'

const agent = (pane: string, status: string, seq: number, ts?: number): Agent => ({
  agent: 'claude',
  agent_status: status,
  attention_rank: 0,
  recency_rank: 0,
  pane_id: pane,
  state_change_seq: seq,
  last_activity_ts: ts,
})

describe('triage', () => {
  it('counts blocked agents and finished ones not seen on any device', () => {
    const agents = [agent('a', 'blocked', 3), agent('b', 'done', 5), agent('c', 'done', 2), agent('d', 'working', 9)]
    const seen = { b: { seq: 4, at: 1 }, c: { seq: 2, at: 1 } }
    expect([unseen(agents[1], seen), unseen(agents[2], seen)]).toEqual([true, false])
    expect(needsYouCount([{ agents, seen }])).toBe(2)
    expect(needsYouCount([{ agents, seen: { ...seen, b: { seq: 5, at: 2 } } }])).toBe(1)
  })

  it('walks blocked agents longest waiting first, unknown times last, then All clear', () => {
    const c = [agent('new', 'blocked', 1, 3000), agent('none', 'blocked', 1), agent('old', 'blocked', 1, 1000), agent('busy', 'working', 1, 10)].map((a) => ({
      bridge: 'b1',
      agent: a,
    }))
    expect(longestWaitingFirst(c.map((x) => x.agent)).map((a) => a.pane_id)).toEqual(['busy', 'old', 'new', 'none'])
    const visited = new Set<string>()
    const order: string[] = []
    for (let n = nextBlocked(c, visited); n; n = nextBlocked(c, visited)) {
      order.push(n.agent.pane_id)
      visited.add(walkKey(n.bridge, n.agent.pane_id))
    }
    expect(order).toEqual(['old', 'new', 'none'])
  })

  it('strips TUI glyphs from titles and alerts, and drops a detail line that repeats the headline', () => {
    expect(plainText('⏺ Write(tests.txt)')).toBe('Write(tests.txt)')
    expect(plainText('✳ Claude Code')).toBe('Claude Code')
    expect(plainText('⠋ Working  ⎿ done')).toBe('Working done')
    expect(agentTitle({ ...agent('p', 'idle', 1), terminal_title_stripped: '✻ Fixing tests' })).toBe('Fixing tests')
    expect(agentTitle({ ...agent('p', 'idle', 1), terminal_title_stripped: '⏺' })).toBe('claude')
    expect(detailWithoutHeadline('⏺ Do you want to proceed?\n  npm test', 'Do you want to proceed?')).toBe('  npm test')
    expect(detailWithoutHeadline('npm test', 'Do you want to proceed?')).toBe('npm test')
    // A Web Push alert's title and body, as the service worker draws them.
    const shown = pushAction(
      { type: 'alert', tag: 's/p', title: '✳ Claude Code is blocked', body: '⏺ Bash(npm test)', status: 'blocked', pane: 'p', server_id: 's', url: 'http://x' },
      false,
    )
    expect(shown).toMatchObject({ do: 'show', title: 'Claude Code is blocked', options: { body: 'Bash(npm test)' } })
  })

  it('says since when a bridge was last live', () => {
    const now = Date.parse('2026-11-25T15:00:00')
    expect(sinceText(now - 30_000, now)).toBe('just now')
    expect(sinceText(Date.parse('2026-11-25T14:05:00'), now)).toBe('since 14:05')
    expect(sinceText(Date.parse('2026-11-03T14:05:00'), now)).toBe('since 3 Nov 14:05')
    expect(sinceText(0, now)).toBe('for a while')
  })
})
