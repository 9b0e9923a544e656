import { Api } from './lib/api.ts'
import type { SavedBridge } from './lib/bridges.ts'
import { bridgesToRegister, deviceKey, loadPushState, parsePushConfig, pruneSent, PUSH_STORE, savePushState, WEBPUSH_STORE, type PushConfig } from './lib/push-state.ts'
import { isVapidKey, keyBytes, sameKey } from './lib/push-keys.ts'
import { saveWorkerBridges } from './lib/push-bridges.ts'

/**
 * Background alerts in the page, two ways:
 *  - standard Web Push (the default, no Firebase): the bridge's VAPID key (`GET /webpush/key`),
 *    a Push API subscription in the push worker, `POST /webpush/subscribe` to each paired bridge
 *    using that key;
 *  - FCM, when the bridge serves a Firebase web config (`GET /push-config`): the FCM token
 *    (lib/fcm.ts, loaded on demand) and `POST /register-token` to every paired bridge.
 */

export const PUSH_SW = '/firebase-messaging-sw.js'
// A reachable push service answers in a second or two; an unreachable one makes subscribe() hang.
const TOKEN_TIMEOUT_MS = 20_000

/** Secure context and the three browser APIs web push needs. */
export const pushSupported = (): boolean =>
  typeof window !== 'undefined' && window.isSecureContext && 'Notification' in window && 'serviceWorker' in navigator && 'PushManager' in window

/**
 * Which of the two the bridge serves (`GET /notify/web`), so a page load asks for neither in vain:
 * `/push-config` answers 404 without a Firebase config (mobile clients rely on that), and
 * `/webpush/key` is missing from a bridge without the Web Push channel.
 */
export interface AlertOffer {
  push_config: boolean
  webpush_key: boolean
}

const NOTHING: AlertOffer = { push_config: false, webpush_key: false }
const offers = new Map<string, Promise<AlertOffer>>()

/** Read once per bridge and page load; a bridge that cannot say (down, or older) offers nothing this time. */
export function alertOffer(b: SavedBridge): Promise<AlertOffer> {
  const key = `${b.url} ${b.bearer}`
  let offer = offers.get(key)
  if (!offer) {
    offer = new Api(b).request<Partial<AlertOffer>>('/notify/web', { timeoutMs: 5000 }).then(
      (r) => ({ push_config: r?.push_config === true, webpush_key: r?.webpush_key === true }),
      () => {
        offers.delete(key)
        return NOTHING
      },
    )
    offers.set(key, offer)
  }
  return offer
}

/**
 * The Firebase web config of the bridge that served this page, when it is `home` and serves one
 * (the token's Firebase project is that page's); any failure leaves push off.
 */
export async function pushConfig(home: SavedBridge): Promise<PushConfig | null> {
  if (new URL(home.url).origin !== location.origin || !(await alertOffer(home)).push_config) return null
  return fetch('/push-config', { cache: 'no-store', signal: AbortSignal.timeout(5000) })
    .then((r) => (r.ok ? r.json() : null))
    .then(parsePushConfig, () => null)
}

/** Whether the person turned push on here (and has not revoked the permission since). */
export const pushOn = (): boolean => pushSupported() && Notification.permission === 'granted' && (loadPushState().on || loadPushState(localStorage, WEBPUSH_STORE).on)

/** The bridge that served this page when it is paired, else the first paired one: its key is the one to subscribe with. */
export const homeBridge = (bridges: SavedBridge[]): SavedBridge | undefined => bridges.find((b) => new URL(b.url).origin === location.origin) ?? bridges[0]

/** The bridge's VAPID public key, or null when it does not offer Web Push (plugin off, older bridge). */
export async function webPushKey(b: SavedBridge): Promise<string | null> {
  if (!(await alertOffer(b)).webpush_key) return null
  try {
    const r = await new Api(b).request<{ public_key?: unknown }>('/webpush/key', { timeoutMs: 5000 })
    return isVapidKey(r?.public_key) ? r.public_key : null
  } catch {
    return null
  }
}

/** Resolves when `reg` runs the push worker (it replaces /sw.js in the same scope). */
function pushWorkerActive(reg: ServiceWorkerRegistration): Promise<void> {
  const ours = (w: ServiceWorker | null) => !!w && new URL(w.scriptURL).pathname === PUSH_SW
  if (ours(reg.active)) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('the push service worker did not start')), 15_000)
    const check = () => {
      if (ours(reg.active)) {
        clearTimeout(t)
        resolve()
      }
    }
    for (const w of [reg.installing, reg.waiting]) w?.addEventListener('statechange', check)
    reg.addEventListener('updatefound', () => reg.installing?.addEventListener('statechange', check))
    check()
  })
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), ms))])
}

export interface SyncResult {
  token: string
  registered: string[]
  failed: Array<{ bridge: string; error: string }>
}

/**
 * Sends `target` (an FCM token or a Web Push endpoint) to each bridge that lacks it, remembering
 * in `store` which bridge has which; `send` returns false for a bridge that should be skipped.
 */
async function registerEverywhere(bridges: SavedBridge[], target: string, store: string, send: (b: SavedBridge) => Promise<boolean>): Promise<SyncResult> {
  let state = pruneSent(loadPushState(localStorage, store), bridges)
  const result: SyncResult = { token: target, registered: [], failed: [] }
  for (const b of bridgesToRegister(state, bridges, target)) {
    try {
      if (!(await send(b))) continue
      state = { ...state, sent: { ...state.sent, [deviceKey(b)]: target } }
      result.registered.push(b.key)
    } catch (err) {
      result.failed.push({ bridge: b.name || b.url, error: err instanceof Error ? err.message : String(err) })
    }
  }
  savePushState({ ...state, on: true }, localStorage, store)
  await saveWorkerBridges(bridges).catch(() => {})
  return result
}

/** The permission prompt; it must follow the user's click, before anything slow. */
async function askPermission(): Promise<void> {
  const perm = await Notification.requestPermission()
  if (perm !== 'granted') throw new Error(perm === 'denied' ? 'notifications are blocked for this site' : 'notifications were not allowed')
}

/** Registers the worker, gets the token and sends it to each bridge that lacks it. */
export async function syncPush(config: PushConfig, bridges: SavedBridge[]): Promise<SyncResult> {
  const reg = await navigator.serviceWorker.register(PUSH_SW, { scope: '/' })
  await pushWorkerActive(reg)
  const { fcmToken } = await import('./lib/fcm.ts')
  const token = await withTimeout(fcmToken(config, reg), TOKEN_TIMEOUT_MS, 'getting a push token')
  return registerEverywhere(bridges, token, PUSH_STORE, async (b) => {
    await new Api(b).post('/register-token', { token })
    return true
  })
}

/** The "Enable push" click: permission first, then the sync. */
export async function enablePush(config: PushConfig, bridges: SavedBridge[]): Promise<SyncResult> {
  await askPermission()
  return syncPush(config, bridges)
}

/**
 * Standard Web Push: one Push API subscription bound to the home bridge's key, sent to every
 * paired bridge that uses the same key (a bridge with another key needs its own web app).
 */
export async function syncWebPush(key: string, bridges: SavedBridge[]): Promise<SyncResult> {
  const reg = await navigator.serviceWorker.register(PUSH_SW, { scope: '/' })
  await pushWorkerActive(reg)
  let sub = await reg.pushManager.getSubscription()
  if (sub && !sameKey(sub.options.applicationServerKey, key)) {
    await sub.unsubscribe().catch(() => {})
    sub = null
  }
  sub ??= await withTimeout(reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) }), TOKEN_TIMEOUT_MS, 'subscribing to push')
  const json = sub.toJSON()
  const endpoint = json.endpoint ?? sub.endpoint
  return registerEverywhere(bridges, endpoint, WEBPUSH_STORE, async (b) => {
    if ((await webPushKey(b)) !== key) return false
    await new Api(b).post('/webpush/subscribe', { endpoint, keys: json.keys as { p256dh: string; auth: string }, expirationTime: json.expirationTime ?? null })
    return true
  })
}

/** The "Enable alerts" click with Web Push: permission first, then the subscription. */
export async function enableWebPush(key: string, bridges: SavedBridge[]): Promise<SyncResult> {
  await askPermission()
  return syncWebPush(key, bridges)
}
