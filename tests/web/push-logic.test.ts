// The web client's push logic without a browser: what the push worker does with each message
// (spec 1 §6.1/6.2, client-compat §4), the config check, which bridges get the token, the
// notification deep link and the plain-pane rule.
import { describe, expect, it } from 'vitest'
import { APPROVE_ACTION, approveOutcome, bridgeForServer, DEFAULT_TITLE, openHref, pushAction, pushData } from '../../plugins/web/app/src/lib/push-message.ts'
import { isVapidKey, keyBytes, sameKey } from '../../plugins/web/app/src/lib/push-keys.ts'
import { bridgesToRegister, loadPushState, parsePushConfig, pruneSent, savePushState, PUSH_STORE } from '../../plugins/web/app/src/lib/push-state.ts'
import { parseRoute } from '../../plugins/web/app/src/route.ts'
import { isPlainPane } from '../../plugins/web/app/src/lib/inbox.ts'
import { composeAlert } from '../../plugins/push/compose.ts'
import { alertMessages, dismissMessage, DEFAULT_ANDROID_CHANNELS } from '../../plugins/notify-fcm/messages.ts'

// What FCM hands the worker as the push's JSON body: the message's data plus FCM's own keys.
const envelope = (data: Record<string, string>, notification?: { title: string; body: string }) => ({
  data,
  ...(notification ? { notification } : {}),
  from: '123456789012',
  fcmMessageId: 'm1',
  priority: 'high',
})

const alertData = {
  type: 'alert',
  agent: 'w1:p2',
  status: 'blocked',
  server_id: 'srv-1',
  server_name: 'desk',
  agent_title: 'fix tests',
  title: 'desk · fix tests',
  body: 'Needs you — Run npm test? · 1. Yes / 2. No',
  question: 'Run npm test?',
  state_change_seq: '7',
}

describe('push worker: message → action', () => {
  it("draws the app copy of an alert with tag <server_id>/<agent> and a link to the agent, ignores the 'os' copy", () => {
    expect(pushAction(envelope({ ...alertData, render: 'os' }, { title: alertData.title, body: alertData.body }), false)).toEqual({ do: 'ignore', why: "render 'os' duplicate" })
    expect(pushAction(envelope({ ...alertData, render: 'app' }), false)).toEqual({
      do: 'show',
      title: 'desk · fix tests',
      options: {
        body: 'Needs you — Run npm test? · 1. Yes / 2. No',
        tag: 'srv-1/w1:p2',
        data: { url: '#/open/srv-1/w1%3Ap2' },
        requireInteraction: true,
        renotify: true,
      },
    })
    // render absent counts as the app copy; a done alert does not stay on screen.
    const done = pushAction(envelope({ ...alertData, status: 'done', body: 'Finished — all green' }), false)
    expect(done).toMatchObject({ do: 'show', options: { body: 'Finished — all green', requireInteraction: false, tag: 'srv-1/w1:p2' } })
  })

  it('falls back to the question for the body and to "Herdr agent" for the title', () => {
    const a = pushAction(envelope({ agent: 'p1', server_id: 's', question: 'Proceed?' }), false)
    expect(a).toMatchObject({ do: 'show', title: DEFAULT_TITLE, options: { body: 'Proceed?', tag: 's/p1' } })
    // type absent or unknown is an alert (client-compat §4).
    expect(pushAction(envelope({ type: 'something-new', agent: 'p1', server_id: 's', title: 'T' }), false)).toMatchObject({ do: 'show', title: 'T' })
  })

  it('leaves alerts to the page while the app is visible, but always acts on a dismiss', () => {
    expect(pushAction(envelope({ ...alertData, render: 'app' }), true)).toEqual({ do: 'ignore', why: 'the app is open' })
    const dismiss = envelope({ type: 'dismiss', agent: 'w1:p2', server_id: 'srv-1' })
    expect(pushAction(dismiss, true)).toEqual({ do: 'close', tag: 'srv-1/w1:p2' })
    expect(pushAction(dismiss, false)).toEqual({ do: 'close', tag: 'srv-1/w1:p2' })
  })

  it('ignores what it cannot place: no agent, no data, not an object', () => {
    expect(pushAction(envelope({ type: 'dismiss', server_id: 's' }), false)).toEqual({ do: 'ignore', why: 'dismiss without agent' })
    expect(pushAction(envelope({ title: 'x' }), false)).toEqual({ do: 'ignore', why: 'alert without agent' })
    expect(pushAction(null, false)).toEqual({ do: 'ignore', why: 'alert without agent' })
    expect(pushAction('text', false)).toEqual({ do: 'ignore', why: 'alert without agent' })
    // Non-string values are dropped (FCM data is strings only).
    expect(pushData({ data: { agent: 'p', n: 3, o: {} } })).toEqual({ agent: 'p' })
    expect(pushData({ agent: 'bare' })).toEqual({ agent: 'bare' })
  })

  it("handles the bridge's own messages: the alert pair draws once, the dismiss closes the same tag", () => {
    const alert = composeAlert({
      serverId: 'srv-9',
      serverName: 'box',
      pane: 'work/w1:p3',
      status: 'blocked',
      seq: 4,
      agentTitle: 'build',
      card: { question: 'Allow?', options: [{ index: 1, label: 'Yes', selected: true }] },
    })
    const [os, app] = alertMessages('tok', alert, DEFAULT_ANDROID_CHANNELS)
    const acts = [os, app].map((m) => pushAction(envelope(m.data as Record<string, string>), false))
    expect(acts[0].do).toBe('ignore')
    expect(acts[1]).toMatchObject({ do: 'show', title: alert.title, options: { body: alert.body, tag: alert.tag } })
    const d = dismissMessage('tok', 'srv-9', 'work/w1:p3')
    expect(pushAction(envelope(d.data as Record<string, string>), false)).toEqual({ do: 'close', tag: alert.tag })
  })
})

describe('notification deep link', () => {
  it('#/open/<server_id>/<pane> round-trips, session-qualified panes and an empty server id included', () => {
    expect(parseRoute(openHref('srv-1', 'work/w1:p3'))).toEqual({ view: 'open', server: 'srv-1', pane: 'work/w1:p3' })
    expect(parseRoute(openHref('', 'w1:p1'))).toEqual({ view: 'open', server: '', pane: 'w1:p1' })
    expect(parseRoute('#/open/%E0%A4%A/p')).toEqual({ view: 'open', server: '%E0%A4%A', pane: 'p' })
  })
})

describe('push config and token bookkeeping', () => {
  const config = { apiKey: 'k', authDomain: 'a', projectId: 'p', storageBucket: 's', messagingSenderId: '1', appId: 'x', vapidKey: 'v' }

  it('accepts only a config with every key a non-empty string', () => {
    expect(parsePushConfig(config)).toEqual(config)
    expect(parsePushConfig({ ...config, measurementId: 'G-1', extra: 1 })).toEqual({ ...config, measurementId: 'G-1' })
    expect(parsePushConfig({ ...config, vapidKey: ' ' })).toBeNull()
    const { appId, ...noApp } = config
    expect(parsePushConfig(noApp)).toBeNull()
    expect(parsePushConfig({ error: 'not found' })).toBeNull()
    expect(parsePushConfig([config])).toBeNull()
    expect(parsePushConfig(null)).toBeNull()
  })

  it('registers the token with bridges lacking it: new pairings, re-pairings and after a token change', () => {
    const b1 = { key: 'b1', device_id: 'd1' }
    const b2 = { key: 'b2', device_id: 'd2' }
    let st: { on: boolean; sent: Record<string, string> } = { on: true, sent: { 'b1/d1': 'T1' } }
    expect(bridgesToRegister(st, [b1, b2], 'T1')).toEqual([b2])
    expect(bridgesToRegister(st, [b1, b2], 'T2')).toEqual([b1, b2])
    expect(bridgesToRegister(st, [{ key: 'b1', device_id: 'd9' }], 'T1')).toEqual([{ key: 'b1', device_id: 'd9' }])
    st = { on: true, sent: { 'b1/d1': 'T1', 'b3/d3': 'T1' } }
    expect(pruneSent(st, [b1, b2])).toEqual({ on: true, sent: { 'b1/d1': 'T1' } })
  })

  it('stores its state and survives garbage in storage', () => {
    const mem = new Map<string, string>()
    const storage = { getItem: (k: string) => mem.get(k) ?? null, setItem: (k: string, v: string) => void mem.set(k, v) }
    expect(loadPushState(storage)).toEqual({ on: false, sent: {} })
    savePushState({ on: true, sent: { 'b1/d1': 'T' } }, storage)
    expect(loadPushState(storage)).toEqual({ on: true, sent: { 'b1/d1': 'T' } })
    mem.set(PUSH_STORE, '{not json')
    expect(loadPushState(storage)).toEqual({ on: false, sent: {} })
    mem.set(PUSH_STORE, JSON.stringify({ on: 'yes', sent: { a: 1, b: 'T' } }))
    expect(loadPushState(storage)).toEqual({ on: false, sent: { b: 'T' } })
  })
})

describe('plain panes', () => {
  it('a pane listed without an agent is plain; an agent pane or an unlisted pane is not', () => {
    const snap = {
      agents: [{ agent: 'claude', agent_status: 'idle', attention_rank: 3, recency_rank: 0, pane_id: 'w1:p1' }],
      panes: [{ pane_id: 'w1:p1', agent: 'claude' }, { pane_id: 'w1:p2' }],
    }
    expect(isPlainPane(snap, 'w1:p2')).toBe(true)
    expect(isPlainPane(snap, 'w1:p1')).toBe(false)
    expect(isPlainPane(snap, 'w9:p9')).toBe(false)
    expect(isPlainPane({}, 'w1:p2')).toBe(false)
    // An agent entry wins even when the pane row lags behind.
    expect(isPlainPane({ ...snap, panes: [{ pane_id: 'w1:p1' }] }, 'w1:p1')).toBe(false)
  })
})

describe('push worker: standard Web Push messages', () => {
  const alert = {
    type: 'alert',
    tag: 'srv-1/w1:p2',
    title: 'desk · fix tests',
    body: 'Needs you',
    status: 'blocked',
    pane: 'w1:p2',
    agent: 'claude',
    server_id: 'srv-1',
    url: '/#/open/srv-1/w1%3Ap2',
  }

  it('draws an alert with its tag and the pane link, and offers Approve only with a seq and a confirm label', () => {
    expect(pushAction(alert, false)).toEqual({
      do: 'show',
      title: 'desk · fix tests',
      options: { body: 'Needs you', tag: 'srv-1/w1:p2', data: { url: '#/open/srv-1/w1%3Ap2' }, requireInteraction: true, renotify: true },
    })
    // An absolute URL (a public bridge URL) still opens in the worker's own origin.
    expect(pushAction({ ...alert, url: 'https://bridge.example/#/open/srv-1/w1%3Ap2' }, false)).toMatchObject({ options: { data: { url: '#/open/srv-1/w1%3Ap2' } } })
    expect(pushAction({ ...alert, seq: 7, approve: 'Yes' }, false)).toMatchObject({
      options: { actions: [{ action: APPROVE_ACTION, title: 'Yes' }], data: { url: '#/open/srv-1/w1%3Ap2', approve: { server_id: 'srv-1', pane: 'w1:p2', seq: 7 } } },
    })
    // No seq, or a done alert: no Approve.
    expect(pushAction({ ...alert, approve: 'Yes' }, false)).not.toHaveProperty('options.actions')
    expect(pushAction({ ...alert, status: 'done', seq: 7, approve: 'Yes' }, false)).not.toHaveProperty('options.actions')
    expect(pushAction(alert, true)).toEqual({ do: 'ignore', why: 'the app is open' })
  })

  it('closes the tag on a dismissal, even with the app open', () => {
    expect(pushAction({ type: 'dismiss', tag: 'srv-1/w1:p2', server_id: 'srv-1', pane: 'w1:p2' }, true)).toEqual({ do: 'close', tag: 'srv-1/w1:p2' })
  })

  it('routes Approve only to the bridge with that server id and says what happened', () => {
    const list = [
      { server_id: 'a', url: 'http://a' },
      { server_id: 'b', url: 'http://b' },
    ]
    expect(bridgeForServer(list, 'b')?.url).toBe('http://b')
    expect(bridgeForServer(list, 'c')).toBeUndefined()
    expect(bridgeForServer(list, '')).toBeUndefined()
    expect(approveOutcome({ applied: true })).toBe('Approved')
    expect(approveOutcome({ applied: false, reason: 'stale seq: approve carried 7, agent now at 9' })).toBe('Not approved: stale seq: approve carried 7, agent now at 9')
    expect(approveOutcome(null, 'the bridge is unreachable')).toBe('Not approved: the bridge is unreachable')
  })

  it('checks VAPID keys and compares a subscription key with them', () => {
    const key = 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U'
    expect(isVapidKey(key)).toBe(true)
    expect(isVapidKey(key.slice(0, 40))).toBe(false)
    expect(isVapidKey(42)).toBe(false)
    const bytes = keyBytes(key)
    expect(bytes.length).toBe(65)
    expect(sameKey(bytes.buffer, key)).toBe(true)
    expect(sameKey(new Uint8Array(65).buffer, key)).toBe(false)
    expect(sameKey(null, key)).toBe(false)
  })
})
