/**
 * The only module that imports Firebase (app + messaging, modular API). push.ts loads it with a
 * dynamic import, so the SDK is a separate chunk fetched only when push is being enabled.
 */
import { getApps, initializeApp } from 'firebase/app'
import { getMessaging, getToken, isSupported } from 'firebase/messaging'
import type { PushConfig } from './push-state.ts'

const APP_NAME = 'herdr-push'

/** The FCM token for this browser, bound to `registration`'s push subscription. */
export async function fcmToken(config: PushConfig, registration: ServiceWorkerRegistration): Promise<string> {
  if (!(await isSupported())) throw new Error('this browser cannot receive web push')
  const { vapidKey, ...web } = config
  const app = getApps().find((a) => a.name === APP_NAME) ?? initializeApp(web, APP_NAME)
  const token = await getToken(getMessaging(app), { vapidKey, serviceWorkerRegistration: registration })
  if (!token) throw new Error('Firebase returned no token')
  return token
}
