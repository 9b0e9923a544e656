/**
 * The web push service worker, served at /firebase-messaging-sw.js (scope `/`) and built by
 * build.mjs as one classic script. It replaces /sw.js in the page's registration once push is
 * enabled, so it first pulls in /sw.js (offline shell, notification clicks) and adds pushes.
 *
 * Pushes are read here rather than through the Firebase service-worker SDK: that SDK draws
 * every message's `notification` block itself, which would show the `render: 'os'` copy of each
 * alert next to ours. The page's getToken only needs this registration's PushManager.
 */
import { pushAction } from '../lib/push-message.ts'

// The repo's tsconfig has the DOM lib, not the webworker one (they conflict): typed loosely.
declare const self: any

self.importScripts('/sw.js')

async function appVisible(): Promise<boolean> {
  const list = await self.clients.matchAll({ type: 'window', includeUncontrolled: true })
  return list.some((c: any) => c.visibilityState === 'visible')
}

async function onPush(event: any): Promise<void> {
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

self.addEventListener('push', (event: any) => event.waitUntil(onPush(event)))

// The browser replaced the push subscription: open pages fetch a new token and re-register it.
self.addEventListener('pushsubscriptionchange', (event: any) => {
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list: any[]) => list.forEach((c) => c.postMessage({ type: 'push-subscription-change' }))),
  )
})
