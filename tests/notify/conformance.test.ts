/**
 * Every notification channel the repository ships, and the third-party example, through the one
 * conformance suite (tests/notify/conformance.ts), each against its own loopback stand-in.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import notifyNtfy from '../../plugins/notify-ntfy/index.ts'
import notifyWebhook from '../../plugins/notify-webhook/index.ts'
import notifyWebpush from '../../plugins/notify-webpush/index.ts'
import notifyFcm from '../../plugins/notify-fcm/index.ts'
import notifyChat from '../../examples/notifier-chat/index.ts'
import { startStandIn, type Received, type StandIn } from './stand-in.ts'
import { browserKeys, decrypt, type BrowserKeys } from './webpush-crypto.ts'
import { startFakeFcm, type FakeFcm } from '../push/fake-fcm.ts'
import { paneOfLink, testNotifier, type Delivered, type NotifierTarget } from './conformance.ts'

const json = (r: Received) => JSON.parse(r.body.toString('utf8'))

/** A stand-in on one path, stallable, its requests read by `read`. */
async function standIn(path: string, read: (r: Received) => Delivered | null): Promise<{ s: StandIn } & Pick<NotifierTarget, 'delivered' | 'stall' | 'close'>> {
  const s = await startStandIn()
  s.answer(path, 200)
  return {
    s,
    delivered: () => s.received.filter((r) => r.path === path).flatMap((r) => read(r) ?? []),
    stall: (on) => s.answer(path, on ? 'stall' : 200),
    close: () => s.close(),
  }
}

testNotifier({
  channel: 'ntfy',
  dismisses: false,
  stalls: true,
  async start() {
    const t = await standIn('/alerts', (r) => ({ kind: 'alert', pane: paneOfLink(String(r.headers.click)) }))
    return { ...t, plugin: [notifyNtfy, { backoffMs: [] }], env: { BRIDGE_NTFY_URL: `${t.s.url}/alerts` } }
  },
})

testNotifier({
  channel: 'webhook',
  dismisses: true,
  stalls: true,
  async start() {
    const t = await standIn('/hook', (r) => ({ kind: json(r).event === 'agent.cleared' ? 'dismiss' : 'alert', pane: json(r).pane }))
    return { ...t, plugin: [notifyWebhook, { backoffMs: [] }], env: { BRIDGE_WEBHOOK_URL: `${t.s.url}/hook`, BRIDGE_WEBHOOK_SECRET: 's' } }
  },
})

testNotifier({
  channel: 'chat',
  dismisses: false,
  stalls: true,
  async start() {
    const t = await standIn('/room', (r) => ({ kind: 'alert', pane: paneOfLink(/<([^|>]+)\|Open>$/.exec(json(r).text)![1]) }))
    return { ...t, plugin: [notifyChat, { timeoutMs: 1000 }], env: { BRIDGE_CHAT_URL: `${t.s.url}/room` } }
  },
})

testNotifier({
  channel: 'webpush',
  dismisses: true,
  stalls: true,
  async start() {
    let keys: BrowserKeys | undefined
    const t = await standIn('/push/sub', (r) => {
      const p = JSON.parse(decrypt(r.body, keys!))
      return { kind: p.type === 'dismiss' ? 'dismiss' : 'alert', pane: p.pane }
    })
    return {
      ...t,
      plugin: [notifyWebpush, { backoffMs: [] }],
      env: { BRIDGE_WEBPUSH_INSECURE: '1', BRIDGE_WEBPUSH_SUBJECT: 'mailto:ops@example.com' },
      async prepare(b) {
        keys = browserKeys()
        const d = await b.pair('phone')
        const r = await b.request('/webpush/subscribe', {
          method: 'POST',
          token: d.bearer,
          json: { endpoint: `${t.s.url}/push/sub`, keys: { p256dh: keys.p256dh, auth: keys.auth } },
        })
        if (r.status !== 200) throw new Error(`subscribe: ${r.status} ${await r.text()}`)
      },
    }
  },
})

let fcm: FakeFcm
beforeAll(async () => {
  fcm = await startFakeFcm()
})
afterAll(() => fcm?.close())

testNotifier({
  channel: 'fcm',
  dismisses: true,
  // The fake Google answers every request; the witness checks cover a slow neighbour.
  stalls: false,
  async start() {
    const home = mkdtempSync(join(tmpdir(), 'conformance-fcm-'))
    mkdirSync(join(home, '.herdr-bridge'), { recursive: true })
    writeFileSync(join(home, '.herdr-bridge', 'serviceAccount.json'), JSON.stringify(fcm.serviceAccount))
    const from = fcm.requests.length
    return {
      home,
      plugin: [notifyFcm, { httpAgent: fcm.agent, backoffMs: [] }],
      env: { GOOGLE_APPLICATION_CREDENTIALS: '', GCE_METADATA_HOST: '127.0.0.1:1', CLOUDSDK_CONFIG: join(home, 'gcloud') },
      async prepare(b) {
        const d = await b.pair('phone')
        const r = await b.request('/register-token', { method: 'POST', token: d.bearer, json: { token: 'conformance-token' } })
        if (r.status !== 200) throw new Error(`register-token: ${r.status} ${await r.text()}`)
      },
      // Each alert is two messages (the OS-drawn one and the app's redraw): counted once, by the first.
      delivered: () =>
        fcm.requests
          .slice(from)
          .map((q) => q.body.message.data as Record<string, string>)
          .filter((d) => d.type === 'dismiss' || d.render === 'os')
          .map((d) => ({ kind: d.type === 'dismiss' ? 'dismiss' : 'alert', pane: d.agent })),
      close: async () => rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }),
    }
  },
})
