import { Api } from './lib/api.ts'
import type { SavedBridge } from './lib/bridges.ts'
import { bridgesToRegister, deviceKey, loadPushState, parsePushConfig, pruneSent, savePushState, type PushConfig } from './lib/push-state.ts'

/**
 * Web push in the page: the config from this page's own bridge (`GET /push-config`), the push
 * service worker, the FCM token (lib/fcm.ts, loaded on demand) and `POST /register-token` to
 * every paired bridge. Nothing here runs unless the bridge serves a config.
 */

export const PUSH_SW = '/firebase-messaging-sw.js'
// A reachable push service answers in a second or two; an unreachable one makes subscribe() hang.
const TOKEN_TIMEOUT_MS = 20_000

/** Secure context and the three browser APIs web push needs. */
export const pushSupported = (): boolean =>
  typeof window !== 'undefined' && window.isSecureContext && 'Notification' in window && 'serviceWorker' in navigator && 'PushManager' in window

let configOnce: Promise<PushConfig | null> | undefined

/** Read once per page load; a 404 (not configured) or any failure leaves push off. */
export function pushConfig(): Promise<PushConfig | null> {
  configOnce ??= fetch('/push-config', { cache: 'no-store', signal: AbortSignal.timeout(5000) })
    .then((r) => (r.ok ? r.json() : null))
    .then(parsePushConfig, () => null)
  return configOnce
}

/** Whether the person turned push on here (and has not revoked the permission since). */
export const pushOn = (): boolean => pushSupported() && Notification.permission === 'granted' && loadPushState().on

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

/** Registers the worker, gets the token and sends it to each bridge that lacks it. */
export async function syncPush(config: PushConfig, bridges: SavedBridge[]): Promise<SyncResult> {
  const reg = await navigator.serviceWorker.register(PUSH_SW, { scope: '/' })
  await pushWorkerActive(reg)
  const { fcmToken } = await import('./lib/fcm.ts')
  const token = await withTimeout(fcmToken(config, reg), TOKEN_TIMEOUT_MS, 'getting a push token')
  let state = pruneSent(loadPushState(), bridges)
  const result: SyncResult = { token, registered: [], failed: [] }
  for (const b of bridgesToRegister(state, bridges, token)) {
    try {
      await new Api(b).post('/register-token', { token })
      state = { ...state, sent: { ...state.sent, [deviceKey(b)]: token } }
      result.registered.push(b.key)
    } catch (err) {
      result.failed.push({ bridge: b.name || b.url, error: err instanceof Error ? err.message : String(err) })
    }
  }
  savePushState({ ...state, on: true })
  return result
}

/** The "Enable push" click: permission first (it must follow the gesture), then the sync. */
export async function enablePush(config: PushConfig, bridges: SavedBridge[]): Promise<SyncResult> {
  const perm = await Notification.requestPermission()
  if (perm !== 'granted') throw new Error(perm === 'denied' ? 'notifications are blocked for this site' : 'notifications were not allowed')
  return syncPush(config, bridges)
}
