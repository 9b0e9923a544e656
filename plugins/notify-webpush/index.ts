import { createHash } from 'node:crypto'
import { join } from 'node:path'
import * as v from 'valibot'
import type { Dispatcher } from 'undici'
import { defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'
import { defineNotifierPlugin, type Notifier, type NotifierState } from '../../core/notify/notifier.ts'
import { configFlag, configSection, configText } from '../../lib/config-schema.ts'
import { createFailureLog } from '../../lib/notify/failures.ts'
import { postWithRetry } from '../../lib/notify/http.ts'
import { actingDevice } from '../../core/notify/device.ts'
import { DEVICE_REVOKED_EVENT, type AlertEvent, type Delivery, type DeliveryTarget, type DismissEvent } from '../../lib/notify/events.ts'
import { loadOrCreateVapidKeys, VAPID_FILE, type VapidKeys } from './keys.ts'
import { pluginStoragePath } from '../../storage/plugin-storage.ts'
import { createSubscriptionStore, type SubscriptionStore, type WebPushSubscription } from './subscriptions.ts'

/**
 * Standard Web Push (RFC 8030, 8291, 8292) to the browsers that enabled alerts, with the
 * bridge's own VAPID key pair: no Firebase project needed.
 *   GET  /webpush/key          device → {public_key}: the applicationServerKey to subscribe with
 *   POST /webpush/subscribe    device PushSubscription JSON → {ok:true}
 *   POST /webpush/unsubscribe  device {endpoint} → {ok:true}
 * web-push does the VAPID signing and aes128gcm encryption; undici carries the request.
 * Settings: `notify.webpush.subject` (BRIDGE_WEBPUSH_SUBJECT), `notify.webpush.insecure`
 * (BRIDGE_WEBPUSH_INSECURE=1) in config.json, checked at start by this plugin.
 */

export const WEBPUSH_CHANNEL = 'webpush'
const PLUGIN_NAME = 'notify-webpush'
/** The key pair's file in the data dir: this plugin's own storage folder (storage/plugin-storage.ts). */
const VAPID_PATH = pluginStoragePath('', PLUGIN_NAME, VAPID_FILE)
/** Subscriptions one device may hold (browsers, profiles); the oldest goes past this. */
export const MAX_PER_DEVICE = 10
const DEFAULT_SUBJECT = 'mailto:herdr-bridge@users.noreply.github.com'

export interface WebPushOptions {
  /** Delays between tries on 429/5xx/network errors; `[1000, 3000]` by default. */
  backoffMs?: number[]
  /** Longest Retry-After honoured; 10 s by default (tests lower it). */
  retryAfterCapMs?: number
  /** undici dispatcher for push requests (tests). */
  dispatcher?: Dispatcher
}

/** The plugin's part of config.json's `notify` section. */
const settingsSchema = configSection({ webpush: v.nullish(configSection({ subject: configText, insecure: configFlag })) })
export type WebPushSettings = v.InferOutput<typeof settingsSchema>

export interface WebPushNotifier extends Notifier {
  /** http: endpoints accepted too (`notify.webpush.insecure`, BRIDGE_WEBPUSH_INSECURE=1). */
  insecure: boolean
  /** Null when the key pair could not be loaded (the reason is in `keyError`). */
  keys: VapidKeys | null
  keyError: string
  subscriptions: SubscriptionStore
}

/** Topic header: base64url, at most 32 characters, one per pane, so a newer message replaces an undelivered older one. */
export const topicOf = (tag: string) => createHash('sha256').update(tag).digest('base64url').slice(0, 32)

export function alertPayload(ev: AlertEvent) {
  return {
    type: 'alert' as const,
    tag: ev.tag,
    title: ev.title,
    body: ev.body,
    status: ev.status,
    pane: ev.pane,
    agent: ev.agent,
    server_id: ev.server_id,
    url: ev.url,
    ...(ev.seq !== undefined ? { seq: ev.seq } : {}),
    ...(ev.approve ? { approve: ev.approve } : {}),
  }
}

export const dismissPayload = (ev: DismissEvent) => ({ type: 'dismiss' as const, tag: ev.tag, server_id: ev.server_id, pane: ev.pane })

/**
 * A subscription as logs show it: its device, push service and a short hash of the endpoint.
 * The endpoint itself never goes to the log: whoever holds it can push to that browser.
 */
const describeSubscription = (sub: Pick<WebPushSubscription, 'device' | 'endpoint'>) =>
  `device ${sub.device} (${new URL(sub.endpoint).host} #${createHash('sha256').update(sub.endpoint).digest('hex').slice(0, 8)})`

async function createWebPushNotifier(ctx: PluginContext, options: WebPushOptions, settings: WebPushSettings): Promise<WebPushNotifier> {
  const subscriptions = await createSubscriptionStore(ctx.storage)
  const failures = createFailureLog(ctx.log, WEBPUSH_CHANNEL)
  let keys: VapidKeys | null = null
  let keyError = ''
  try {
    const r = await loadOrCreateVapidKeys(ctx.storage)
    keys = r.keys
    if (r.created) ctx.log.info(`web push: made a new VAPID key pair (${VAPID_PATH} in the data dir)`)
  } catch (err) {
    keyError = (err as Error).message
    ctx.log.error(`web push is off: ${keyError}`)
  }
  const publicUrl = ctx.config.transport.public_url
  const subject = settings.webpush?.subject || (publicUrl.startsWith('https://') ? publicUrl : DEFAULT_SUBJECT)

  /** One message to one subscription, and what its push service answered; a gone subscription is deleted. */
  const deliver = async (sub: WebPushSubscription, payload: object, opts: { TTL: number; urgency: 'high' | 'normal'; topic: string }): Promise<DeliveryTarget> => {
    const webpush = (await import('web-push')).default
    const req = webpush.generateRequestDetails({ endpoint: sub.endpoint, keys: sub.keys }, JSON.stringify(payload), {
      vapidDetails: { subject, publicKey: keys!.publicKey, privateKey: keys!.privateKey },
      TTL: opts.TTL,
      urgency: opts.urgency,
      topic: opts.topic,
      contentEncoding: 'aes128gcm',
    })
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, val]) => [k, String(val)]))
    // Keyed by endpoint: two browsers of one device at one push service fail and recover apart.
    const label = describeSubscription(sub)
    const r = await postWithRetry(req.endpoint, {
      headers,
      body: req.body as Buffer,
      timeoutMs: 10_000,
      backoffMs: options.backoffMs ?? [1000, 3000],
      retryOn: [429],
      retryAfterCapMs: options.retryAfterCapMs,
      dispatcher: options.dispatcher,
    })
    const target = { target: label, device: sub.device }
    if (r.ok) {
      failures.ok(sub.endpoint, label)
      return { ...target, ok: true, answer: `HTTP ${r.status}` }
    }
    // 404/410: the subscription is gone for good (an uninstalled app, revoked permission): drop it.
    if (r.status === 404 || r.status === 410) {
      ctx.log.info(`web push: the subscription of ${label} has expired (${r.status}); removed`)
      await subscriptions.removeEndpoint(sub.endpoint).catch(() => {})
      return { ...target, ok: false, answer: `${r.error} (subscription removed)` }
    }
    failures.failed(sub.endpoint, r.error, label)
    return { ...target, ok: false, answer: r.error }
  }

  /** Subscriptions of devices still paired; those of devices revoked while the bridge was down go. */
  const live = async () => {
    const all = subscriptions.list()
    const gone = [...new Set(all.filter((s) => !ctx.devices.get(s.device)).map((s) => s.device))]
    for (const d of gone) await subscriptions.removeDevice(d).catch(() => {})
    return all.filter((s) => !gone.includes(s.device))
  }

  const fanout = async (subs: WebPushSubscription[], payload: object, opts: { TTL: number; urgency: 'high' | 'normal'; topic: string }): Promise<Delivery> => {
    const targets = await Promise.all(
      subs.map((s) => deliver(s, payload, opts).catch((err): DeliveryTarget => ({ target: describeSubscription(s), device: s.device, ok: false, answer: (err as Error).message }))),
    )
    const sent = targets.filter((t) => t.ok).length
    return { sent, total: subs.length, enabled: true, ...(sent < subs.length ? { note: `${subs.length - sent} of ${subs.length} failed (see the bridge log)` } : {}), targets }
  }

  return {
    get keys() {
      return keys
    },
    get keyError() {
      return keyError
    },
    subscriptions,
    insecure: settings.webpush?.insecure === true,
    describe: () =>
      keys
        ? { configured: true, detail: `VAPID key pair in ${join(ctx.config.data_dir, VAPID_PATH)}; browsers subscribe from the web app` }
        : { configured: false, detail: `no VAPID key pair: ${keyError}` },
    async alert(ev) {
      if (!keys) return { sent: 0, total: 0, enabled: false, note: keyError }
      const subs = (await live()).filter((s) => !ev.muted.includes(s.device))
      if (!subs.length) return { sent: 0, total: 0, enabled: true, note: 'no browser has subscribed (enable alerts in the web app)' }
      return fanout(subs, alertPayload(ev), { TTL: ev.status === 'blocked' ? 3600 : 600, urgency: ev.status === 'blocked' ? 'high' : 'normal', topic: topicOf(ev.tag) })
    },
    async dismiss(ev) {
      if (!keys) return { sent: 0, total: 0, enabled: false }
      const subs = await live()
      if (!subs.length) return { sent: 0, total: 0, enabled: true }
      return fanout(subs, dismissPayload(ev), { TTL: 3600, urgency: 'normal', topic: topicOf(ev.tag) })
    },
  }
}

const route = defineBridgeRoute.with<NotifierState<WebPushNotifier>>()

/** The notifier with its key pair, or 503 saying why web push is off. */
const withKeys = (state: NotifierState<WebPushNotifier>) => {
  const n = state.notifier
  if (!n.keys) fail(503, `web push is off: ${n.keyError}`)
  return n as WebPushNotifier & { keys: VapidKeys }
}

/** base64url of exactly `bytes` bytes (optionally starting with `first`). */
const b64url = (field: string, bytes: number, first?: number) =>
  v.pipe(
    v.string(`${field}: want a base64url string`),
    v.check(
      (s) => {
        if (!/^[A-Za-z0-9_-]+={0,2}$/.test(s)) return false
        const b = Buffer.from(s.replace(/=+$/, ''), 'base64url')
        return b.length === bytes && (first === undefined || b[0] === first)
      },
      `${field}: want ${bytes} bytes as base64url${first === 4 ? ' (an uncompressed P-256 key)' : ''}`,
    ),
  )

const subscribeSchema = v.object(
  {
    endpoint: v.pipe(v.string('endpoint: want the push service URL'), v.maxLength(2048, 'endpoint: at most 2048 characters'), v.url('endpoint: want a URL')),
    keys: v.object({ p256dh: b64url('keys.p256dh', 65, 4), auth: b64url('keys.auth', 16) }, 'want {p256dh, auth}'),
    expirationTime: v.optional(v.nullable(v.number('expirationTime: want a number or null'))),
  },
  'want a PushSubscription: {endpoint, keys: {p256dh, auth}}',
)

export default defineNotifierPlugin<WebPushOptions, WebPushNotifier, WebPushSettings>({
  name: PLUGIN_NAME,
  channel: WEBPUSH_CHANNEL,
  // Each device's own subscriptions / tokens: a device may turn it off for itself.
  perDevice: true,
  config: {
    section: 'notify',
    schema: settingsSchema,
    env: { 'webpush.subject': 'BRIDGE_WEBPUSH_SUBJECT', 'webpush.insecure': { name: 'BRIDGE_WEBPUSH_INSECURE', read: (text) => text === '1' } },
  },
  create: createWebPushNotifier,
  subscribe: [
    {
      source: 'bridge',
      type: DEVICE_REVOKED_EVENT,
      async handler(ev, { ctx, state }) {
        const id = ev.payload?.id
        if (typeof id !== 'string') return
        const n = await state.notifier.subscriptions.removeDevice(id).catch(() => 0)
        if (n) ctx.log.info(`web push: removed ${n} subscription(s) of revoked device ${id}`)
      },
    },
  ],
  routes: [
    route({
      method: 'GET',
      path: '/webpush/key',
      auth: 'device',
      errors: 'json',
      describe: "The bridge's VAPID public key (base64url, uncompressed P-256): the applicationServerKey to subscribe with",
      response: v.object({ public_key: v.string() }),
      handler: ({ state }) => ({ public_key: withKeys(state).keys.publicKey }),
    }),
    route({
      method: 'POST',
      path: '/webpush/subscribe',
      auth: 'device',
      // This device's own alerts: a watching device may set them.
      role: 'viewer',
      errors: 'json',
      describe: "Deliver this device's alerts to a browser push subscription (at most 10 per device; the oldest goes)",
      body: subscribeSchema,
      response: v.object({ ok: v.literal(true) }),
      async handler({ body, auth, ctx, state }) {
        const n = withKeys(state)
        const url = new URL(body.endpoint)
        if (url.protocol !== 'https:' && !(url.protocol === 'http:' && n.insecure)) {
          fail(400, 'endpoint: want an https: URL (BRIDGE_WEBPUSH_INSECURE=1 also allows http:)')
        }
        const device = await actingDevice(ctx, auth)
        const dropped = await n.subscriptions.add(
          { device, endpoint: body.endpoint, keys: { p256dh: body.keys.p256dh, auth: body.keys.auth }, expirationTime: body.expirationTime ?? null, created_at: ctx.now() },
          MAX_PER_DEVICE,
        )
        ctx.log.info(`web push: device ${device} subscribed a browser (${url.host})${dropped ? `; its oldest subscription was dropped (at most ${MAX_PER_DEVICE})` : ''}`)
        return { ok: true }
      },
    }),
    route({
      method: 'POST',
      path: '/webpush/unsubscribe',
      auth: 'device',
      // This device's own alerts: a watching device may set them.
      role: 'viewer',
      errors: 'json',
      describe: 'Stop delivering to a browser push subscription',
      body: v.object({ endpoint: v.pipe(v.string('endpoint: want the push service URL'), v.nonEmpty('endpoint: want the push service URL')) }, 'want {endpoint}'),
      response: v.object({ ok: v.literal(true), removed: v.boolean() }),
      async handler({ body, auth, state }) {
        const n = state.notifier
        // A device removes only its own; the admin token may remove any.
        const removed = await n.subscriptions.removeEndpoint(body.endpoint, auth.deviceId)
        return { ok: true, removed }
      },
    }),
  ],
})
