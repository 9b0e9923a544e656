/**
 * The push service worker, served at /firebase-messaging-sw.js (scope `/`) and built by
 * build.mjs as one classic script. It replaces /sw.js in the page's registration once alerts
 * are enabled, so it first pulls in /sw.js (offline shell, notification clicks) and adds pushes:
 * standard Web Push from the bridge's webpush channel, or FCM's, whichever the page set up.
 *
 * Pushes are read here rather than through the Firebase service-worker SDK: that SDK draws
 * every message's `notification` block itself, which would show the `render: 'os'` copy of each
 * alert next to ours. The page's getToken only needs this registration's PushManager.
 */
import { APPROVE_ACTION, approveOutcome, bridgeForServer, pushAction, type ApproveData } from '../lib/push-message.ts'
import { loadWorkerBridges } from '../lib/push-bridges.ts'
import { jsonObject } from '../lib/json.ts'

// The repo's tsconfig has the DOM lib, not the webworker one (they conflict): the parts of the
// worker's global scope used here, declared by hand.
interface WorkerExtendableEvent extends Event {
  waitUntil(work: Promise<unknown>): void
}
interface WorkerPushEvent extends WorkerExtendableEvent {
  readonly data: { json(): unknown } | null
}
interface WorkerNotificationEvent extends WorkerExtendableEvent {
  readonly action: string
  readonly notification: Notification
}
interface WorkerWindowClient {
  readonly visibilityState: DocumentVisibilityState
  postMessage(message: unknown): void
}
interface WorkerScope {
  importScripts(...urls: string[]): void
  readonly clients: { matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly WorkerWindowClient[]> }
  readonly registration: ServiceWorkerRegistration
  addEventListener(type: 'push', listener: (event: WorkerPushEvent) => void): void
  addEventListener(type: 'notificationclick', listener: (event: WorkerNotificationEvent) => void): void
  addEventListener(type: 'pushsubscriptionchange', listener: (event: WorkerExtendableEvent) => void): void
}
declare const self: WorkerScope

self.importScripts('/sw.js')

async function appVisible(): Promise<boolean> {
  const list = await self.clients.matchAll({ type: 'window', includeUncontrolled: true })
  return list.some((c) => c.visibilityState === 'visible')
}

async function onPush(event: WorkerPushEvent): Promise<void> {
  let body: unknown = null
  try {
    body = event.data?.json() ?? null
  } catch {
    return
  }
  const act = pushAction(body, await appVisible())
  if (act.do === 'show') await self.registration.showNotification(act.title, act.options as NotificationOptions)
  else if (act.do === 'close') for (const n of (await self.registration.getNotifications({ tag: act.tag })) as Notification[]) n.close()
}

self.addEventListener('push', (event) => event.waitUntil(onPush(event)))

/** Approve from the notification: `/approve` with the seq the alert carried; the bridge refuses a stale one. */
async function approve(a: ApproveData, tag: string): Promise<void> {
  const b = bridgeForServer(await loadWorkerBridges(), a.server_id)
  let text: string
  if (!b) text = approveOutcome(null, 'this browser is not paired with that bridge')
  else {
    try {
      const res = await fetch(`${b.url}/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${b.bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: a.pane, seq: a.seq }),
      })
      text = res.ok ? approveOutcome(await res.json()) : approveOutcome(null, `HTTP ${res.status}`)
    } catch {
      text = approveOutcome(null, 'the bridge is unreachable')
    }
  }
  // Shown briefly in place of the alert, so a refusal (stale seq) is not silent.
  // `renotify` is in browsers' options but not in TypeScript's DOM lib yet.
  const options: NotificationOptions & { renotify?: boolean } = { tag, renotify: false, silent: true }
  await self.registration.showNotification(text, options)
}

self.addEventListener('notificationclick', (event) => {
  const a = jsonObject(event.notification?.data as unknown)?.approve as ApproveData | undefined
  if (event.action !== APPROVE_ACTION || !a) return
  event.notification.close()
  event.waitUntil(approve(a, event.notification.tag))
})

// The browser replaced the push subscription: open pages fetch a new token and re-register it.
self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list) => list.forEach((c) => c.postMessage({ type: 'push-subscription-change' }))))
})
