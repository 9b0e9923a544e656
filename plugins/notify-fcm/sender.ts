import { randomBytes } from 'node:crypto'
import type { Agent } from 'node:http'
import { initializeApp, deleteApp, type App, type Credential } from 'firebase-admin/app'
import { getMessaging, type Message } from 'firebase-admin/messaging'
import { errField } from '../../lib/error-fields.ts'

/**
 * Delivery through firebase-admin's FCM HTTP v1 API, one message per request (`send`), so no
 * HTTP/2 session is held open between alerts and `httpAgent` applies to every request.
 */

export type SendResult = { ok: true; id: string } | { ok: false; dead: boolean; code: string; message: string }

export interface PushSender {
  send(message: Message, opts?: { dryRun?: boolean }): Promise<SendResult>
  close(): Promise<void>
}

/** Transient: retried with backoff. firebase-admin itself already retries 503 and connection resets. */
const TRANSIENT = new Set([
  'messaging/internal-error',
  'messaging/server-unavailable',
  'messaging/message-rate-exceeded',
  'messaging/device-message-rate-exceeded',
  'messaging/unknown-error',
  'app/network-error',
  'app/network-timeout',
])

/** FCM says this token will never work again: clear it from its device. */
export function isDeadToken(code: string, message: string): boolean {
  if (code === 'messaging/registration-token-not-registered' || code === 'messaging/invalid-registration-token') return true
  // INVALID_ARGUMENT is also what a malformed message gets; only a token complaint means dead.
  return code === 'messaging/invalid-argument' && /registration token/i.test(message)
}

export interface FcmSenderOptions {
  credential: Credential
  projectId: string
  httpAgent?: Agent
  /** Delays between attempts; three attempts by default. */
  backoffMs?: number[]
}

export function createFcmSender(opts: FcmSenderOptions): PushSender {
  // A unique app name per bridge: tests run several bridges in one process.
  const app: App = initializeApp({ credential: opts.credential, projectId: opts.projectId, httpAgent: opts.httpAgent }, `bridge-push-${randomBytes(6).toString('hex')}`)
  const messaging = getMessaging(app)
  const backoff = opts.backoffMs ?? [250, 500]
  return {
    async send(message, o = {}) {
      for (let attempt = 0; ; attempt++) {
        try {
          const id = await messaging.send(message, o.dryRun)
          return { ok: true, id }
        } catch (err) {
          // eslint-disable-next-line @typescript-eslint/no-base-to-string -- firebase's codes are strings; anything else reads as String() shows it
          const code = String(errField(err, 'code') ?? errField(errField(err, 'errorInfo'), 'code') ?? 'unknown')
          const msg = String(errField(err, 'message') ?? err).split('\n')[0]
          if (TRANSIENT.has(code) && attempt < backoff.length) {
            await new Promise((r) => setTimeout(r, backoff[attempt]))
            continue
          }
          return { ok: false, dead: isDeadToken(code, msg), code, message: msg }
        }
      }
    },
    close: () => deleteApp(app),
  }
}

/**
 * FCM bills user credentials to a quota project sent as `x-goog-user-project`; firebase-admin
 * adds that header for user credentials only from $GOOGLE_CLOUD_QUOTA_PROJECT, so it is set
 * (when unset) while user credentials are in use. Returns the undo.
 */
export function useQuotaProject(projectId: string): () => void {
  if (process.env.GOOGLE_CLOUD_QUOTA_PROJECT) return () => {}
  process.env.GOOGLE_CLOUD_QUOTA_PROJECT = projectId
  return () => {
    if (process.env.GOOGLE_CLOUD_QUOTA_PROJECT === projectId) delete process.env.GOOGLE_CLOUD_QUOTA_PROJECT
  }
}
