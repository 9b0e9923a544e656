// The web client's pure logic (no browser): ordering, times, the /events state machine, the
// transcript reducer, diff parsing, completion, pairing input, static-file rules, the card's poller.
import { describe, expect, it, vi } from 'vitest'
import { inboxGroups, inboxOrder, relativeTime, unwrapSnapshot, type Agent } from '../../plugins/web/app/src/lib/inbox.ts'
import { backoff, feedFrame } from '../../plugins/web/app/src/lib/feed.ts'
import { emptyTranscript, olderRequest, transcriptFrame } from '../../plugins/web/app/src/lib/transcript.ts'
import { gapAbove, parseDiff } from '../../plugins/web/app/src/lib/diff.ts'
import { completions, slashQuery } from '../../plugins/web/app/src/lib/commands.ts'
import { parsePairingInput } from '../../plugins/web/app/src/lib/pairing.ts'
import { normalizeBaseUrl, upsertBridge, wsUrl } from '../../plugins/web/app/src/lib/bridges.ts'
import { cacheControlOf, confine, contentTypeOf, isAppRoute } from '../../plugins/web/static.ts'
import { poller } from '../../plugins/web/app/src/lib/poll.ts'

const agent = (pane_id: string, attention_rank: number, recency_rank: number): Agent => ({
  agent: 'claude',
  agent_status: ['blocked', 'done', 'working', 'idle', 'unknown'][attention_rank],
  attention_rank,
  recency_rank,
  pane_id,
})

describe('inbox', () => {
  it('orders by (attention_rank, recency_rank) and groups consecutive ranks', () => {
    const list = [agent('a', 3, 0), agent('b', 0, 2), agent('c', 2, 1), agent('d', 0, 3), agent('e', 4, 4)]
    expect(inboxOrder(list).map((a) => a.pane_id)).toEqual(['b', 'd', 'c', 'a', 'e'])
    expect(inboxGroups(list).map((g) => [g.label, g.agents.map((a) => a.pane_id)])).toEqual([
      ['Blocked', ['b', 'd']],
      ['Working', ['c']],
      ['Idle', ['a']],
      ['Unknown', ['e']],
    ])
  })

  it('relative time is empty when unknown, never "now"', () => {
    const now = 1_700_000_000_000
    expect(relativeTime(undefined, now)).toBe('')
    expect(relativeTime(0, now)).toBe('')
    expect(relativeTime(-5, now)).toBe('')
    expect(relativeTime(now - 10_000, now)).toBe('now')
    expect(relativeTime(now - 5 * 60_000, now)).toBe('5 min')
    expect(relativeTime(now - 3 * 3600_000, now)).toBe('3 h')
    expect(relativeTime(now - 2 * 86400_000, now)).toBe('2 d')
  })

  it('accepts the three snapshot envelopes', () => {
    const s = { agents: [] }
    expect(unwrapSnapshot({ result: { snapshot: s } })).toBe(s)
    expect(unwrapSnapshot({ snapshot: s })).toBe(s)
    expect(unwrapSnapshot(s)).toBe(s)
  })
})

describe('/events state machine', () => {
  it('seeds, refetches on deltas, ignores heartbeats, reconnects on a gap or a resync', () => {
    const st = { seq: -1 }
    expect(feedFrame(st, JSON.stringify({ type: 'snapshot', source: 'bridge', seq: 10, snapshot: { agents: [] } }))).toEqual({ do: 'seed', snapshot: { agents: [] } })
    expect(st.seq).toBe(10)
    expect(feedFrame(st, JSON.stringify({ type: 'heartbeat', ts: 1 }))).toEqual({ do: 'nothing' })
    expect(feedFrame(st, JSON.stringify({ source: 'multiplexer', type: 'pane_updated', seq: 11, payload: {} })).do).toBe('refetch')
    expect(st.seq).toBe(11)
    expect(feedFrame(st, JSON.stringify({ source: 'multiplexer', type: 'pane_updated', seq: 13, payload: {} }))).toEqual({ do: 'reconnect', why: 'missed events 12…12' })
    const st2 = { seq: 5 }
    expect(feedFrame(st2, JSON.stringify({ source: 'bridge', type: 'multiplexer_resync', seq: 6, payload: {} })).do).toBe('reconnect')
    expect(feedFrame(st2, 'not json')).toEqual({ do: 'nothing' })
    expect(feedFrame(st2, new ArrayBuffer(2))).toEqual({ do: 'nothing' })
    expect([0, 1, 2, 3, 9].map(backoff)).toEqual([1000, 2000, 4000, 8000, 8000])
  })
})

describe('transcript reducer', () => {
  const entry = (seq: number, extra: object = {}) => ({
    type: 'entry',
    live: false,
    entry: { id: `u${seq}#0`, seq, role: 'assistant', kind: 'message', text: `m${seq}`, ...extra },
  })

  it('dedupes by seq, keeps order, pages older, resets on a new session', () => {
    let st = emptyTranscript()
    st = transcriptFrame(st, { type: 'hello', session_id: 's1', oldest_loaded_seq: 151, has_older: true })
    st = transcriptFrame(st, entry(152))
    st = transcriptFrame(st, entry(151))
    st = transcriptFrame(st, entry(152))
    st = transcriptFrame(st, { type: 'backlog_complete', count: 2, has_more: true })
    expect(st.entries.map((e) => e.seq)).toEqual([151, 152])
    expect(olderRequest(st)).toBe(JSON.stringify({ type: 'load_older', before_seq: 151, limit: 150 }))
    expect(olderRequest(st)).toBeNull() // one page in flight at a time
    st = transcriptFrame(st, entry(150))
    st = transcriptFrame(st, { type: 'page_complete', requested_before_seq: 151, oldest_loaded_seq: 1, has_older: false })
    expect(st.entries.map((e) => e.seq)).toEqual([150, 151, 152])
    expect(olderRequest(st)).toBeNull()
    st = transcriptFrame(st, entry(153, { kind: 'tool_result', result: { for_id: 't1', ok: true } }))
    expect(st.results.get('t1')?.seq).toBe(153)
    st = transcriptFrame(st, { type: 'session_changed', pane: 'w1:p1', from: 's1', to: 's2' })
    expect(st.entries).toEqual([])
    st = transcriptFrame(st, { type: 'hello', session_id: 's2', oldest_loaded_seq: 1, has_older: false })
    st = transcriptFrame(st, entry(1))
    expect(st.entries.map((e) => e.seq)).toEqual([1])
    // A different session id in hello without session_changed (rotation while disconnected) resets too.
    st = transcriptFrame(st, { type: 'hello', session_id: 's3', oldest_loaded_seq: 0, has_older: false })
    expect(st.entries).toEqual([])
  })
})

describe('diff', () => {
  it('parses hunks with new-side line numbers and finds the gap above each', () => {
    const d = [
      'diff --git a/f b/f',
      '--- a/f',
      '+++ b/f',
      '@@ -27,7 +27,7 @@ x',
      ' line 27',
      '-line 30',
      '+line 30 changed',
      ' line 31',
      '@@ -50,2 +50,3 @@',
      ' a',
      '+b',
      ' c',
    ].join('\n')
    const { meta, hunks } = parseDiff(d)
    expect(meta).toEqual(['diff --git a/f b/f', '--- a/f', '+++ b/f'])
    expect(hunks.map((h) => [h.newStart, h.newCount, h.lines.length])).toEqual([
      [27, 7, 4],
      [50, 3, 3],
    ])
    expect(hunks[0].lines[2]).toEqual({ kind: 'add', text: 'line 30 changed', newNo: 28 })
    expect(gapAbove(hunks, 0)).toEqual([1, 26])
    expect(gapAbove(hunks, 1)).toEqual([34, 49])
  })
})

describe('reply box helpers', () => {
  it('completes a lone /word: prefix matches first, then substrings', () => {
    const cmds = [{ name: 'review' }, { name: 'clear' }, { name: 'compact' }, { name: '' }, { name: 'pr-comments' }]
    expect(slashQuery('/co')).toBe('co')
    expect(slashQuery('/co x')).toBeNull()
    expect(slashQuery('hello')).toBeNull()
    expect(completions(cmds, 'c').map((c) => c.name)).toEqual(['clear', 'compact', 'pr-comments'])
    expect(completions(cmds, '').length).toBe(4)
  })

  it('reads pairing input as the QR JSON, a link or a bare code', () => {
    expect(parsePairingInput('3F9A1C07')).toEqual({ code: '3f9a1c07' })
    expect(parsePairingInput('{"url":"http://10.0.0.2:8787","code":"3f9a1c07"}')).toEqual({ url: 'http://10.0.0.2:8787', code: '3f9a1c07' })
    expect(parsePairingInput('{"url":"javascript:alert(1)","code":"3f9a1c07"}')).toEqual({ code: '3f9a1c07' })
    expect(parsePairingInput('http://host:8787/#/pair?code=abcd1234')).toEqual({ code: 'abcd1234', url: 'http://host:8787' })
    expect(parsePairingInput('{"nope":1}')).toBeNull()
    expect(parsePairingInput('')).toBeNull()
  })

  it('normalises base URLs, builds root WebSocket URLs and re-pairs in place', () => {
    expect(normalizeBaseUrl('http://h:1/')).toBe('http://h:1')
    expect(normalizeBaseUrl('ftp://h')).toBeNull()
    expect(wsUrl('https://h:9/base', '/events', { token: 't' })).toBe('wss://h:9/events?token=t')
    let list = upsertBridge([], { url: 'http://a', bearer: '1', name: 'A', server_id: 'x', device_id: 'd1' })
    list = upsertBridge(list, { url: 'http://b', bearer: '2', name: 'B', server_id: 'y', device_id: 'd2' })
    list = upsertBridge(list, { url: 'http://a2', bearer: '3', name: 'A', server_id: 'x', device_id: 'd3' })
    expect(list.map((b) => [b.key, b.bearer])).toEqual([
      ['b1', '3'],
      ['b2', '2'],
    ])
  })
})

describe('static files', () => {
  it('confines paths to the build folder', () => {
    expect(confine('/d/', '/assets/a.js')).toBe('/d/assets/a.js')
    expect(confine('/d/', '/')).toBe('/d/')
    for (const bad of ['/../x', '/assets/%2e%2e/%2e%2e/x', '/a%00b', '/a\\..\\b', 'x', '/%E0%A4%A', '/assets/..%2f..%2fx']) expect([bad, confine('/d/', bad)]).toEqual([bad, null])
  })

  it('types, caching and which paths get the app shell', () => {
    expect(contentTypeOf('a.js')).toBe('text/javascript; charset=utf-8')
    expect(contentTypeOf('a.webmanifest')).toBe('application/manifest+json; charset=utf-8')
    expect(contentTypeOf('a.unknown')).toBe('application/octet-stream')
    expect(cacheControlOf('/assets/index-abc.js')).toBe('public, max-age=31536000, immutable')
    expect(cacheControlOf('/sw.js')).toBe('no-cache')
    expect(cacheControlOf('/index.html')).toBe('no-cache')
    expect(isAppRoute('/')).toBe(true)
    expect(isAppRoute('/agent/x')).toBe(true)
    expect(isAppRoute('/x.png')).toBe(false)
    expect(isAppRoute('/assets/x')).toBe(false)
  })
})

describe('card poller', () => {
  it('reads one at a time: the next poll waits for the answer, and asks during a read share one read right after it', async () => {
    vi.useFakeTimers()
    try {
      let open = 0
      let most = 0
      let reads = 0
      const answers: Array<() => void> = []
      const p = poller(
        () =>
          new Promise<void>((res) => {
            reads++
            most = Math.max(most, ++open)
            answers.push(() => (open--, res()))
          }),
        1500,
      )
      const first = p.now()
      expect(reads).toBe(1)
      // A slow bridge: the interval passes many times while the read is out, and nothing is re-asked.
      await vi.advanceTimersByTimeAsync(10_000)
      expect(reads).toBe(1)
      const a = p.now()
      const b = p.now()
      expect(reads).toBe(1)
      answers.shift()!()
      await first
      expect(reads).toBe(2)
      answers.shift()!()
      await Promise.all([a, b])
      expect(reads).toBe(2)
      // Then every 1.5 s after the last answer.
      await vi.advanceTimersByTimeAsync(1499)
      expect(reads).toBe(2)
      await vi.advanceTimersByTimeAsync(1)
      expect(reads).toBe(3)
      answers.shift()!()
      p.stop()
      await vi.advanceTimersByTimeAsync(10_000)
      expect(reads).toBe(3)
      expect(most).toBe(1)
    } finally {
      vi.useRealTimers()
    }
  })

  it('keeps polling after a failed read', async () => {
    vi.useFakeTimers()
    try {
      let reads = 0
      const p = poller(async () => {
        reads++
        throw new Error('502')
      }, 1500)
      await p.now()
      await vi.advanceTimersByTimeAsync(1500)
      expect(reads).toBe(2)
      p.stop()
    } finally {
      vi.useRealTimers()
    }
  })
})
