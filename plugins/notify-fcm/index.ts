import type { Agent } from 'node:http'
import type { Message } from 'firebase-admin/messaging'
import type { PluginContext } from '../../core/plugin.ts'
import { logSafe } from '../../lib/strings.ts'
import { defineNotifierPlugin, type Notifier } from '../../core/notify/notifier.ts'
import { createFailureLog } from '../../lib/notify/failures.ts'
import type { AlertEvent, Delivery, DismissEvent } from '../../lib/notify/events.ts'
import { alertData } from '../../lib/notify/alert-data.ts'
import { alertMessages, dismissMessage, DEFAULT_ANDROID_CHANNELS, type AndroidChannels } from './messages.ts'
import { findCredential, describeCredential, CredentialError, type FoundCredential } from './credentials.ts'
import type { PushSender, SendResult } from './sender.ts'
import { fcmSettings, type FcmSettings } from './settings.ts'

/**
 * The FCM channel: every paired device's push token gets each alert as two FCM v1 messages and
 * each dismissal as one, through firebase-admin. Credentials are looked up at start; the SDK
 * itself is loaded at the first send, so a bridge without them never loads it.
 */

export interface FcmOptions {
  /** Channel ids for the OS-drawn notification; also read from config.json `push.android_channels`. */
  android_channels?: Partial<AndroidChannels>
  /** Agent for every Google request (OAuth and FCM). Tests point it at a local fake FCM. */
  httpAgent?: Agent
  /** Delays between send attempts on transient failures. */
  backoffMs?: number[]
}

export interface FcmNotifier extends Notifier {
  /** Resolves once credentials were looked up. */
  ready: Promise<void>
  readonly credential: FoundCredential | null
}

export const FCM_CHANNEL = 'fcm'

function createFcmNotifier(ctx: PluginContext, options: FcmOptions): FcmNotifier {
  const settings = fcmSettings(ctx.config, ctx.env)
  const channels = resolveChannels(settings, options)
  const failures = createFailureLog(ctx.log, FCM_CHANNEL)
  let credential: FoundCredential | null = null
  let sender: Promise<PushSender> | null = null
  let restoreQuota = () => {}
  let closed = false

  const ready = (async () => {
    try {
      credential = await findCredential({ push: settings, env: ctx.env, home: ctx.home, httpAgent: options.httpAgent })
    } catch (err) {
      const msg = err instanceof CredentialError ? err.message : `push credentials: ${(err as Error).message}`
      ctx.log.error(`${msg}; FCM notifications are only logged until this is fixed`)
      return
    }
    if (!credential) return void ctx.log.info('no FCM credentials found: FCM notifications are only logged (see `bridge push status`)')
    ctx.log.info(`push via FCM: ${describeCredential(credential)}`)
  })()

  const getSender = (): Promise<PushSender> =>
    (sender ??= (async () => {
      const c = credential!
      if (c.type === 'authorized_user') restoreQuota = (await import('./sender.ts')).useQuotaProject(c.projectId)
      const { createFcmSender } = await import('./sender.ts')
      return createFcmSender({ credential: c.credential, projectId: c.projectId, httpAgent: options.httpAgent, backoffMs: options.backoffMs })
    })())

  /** Devices with a token, one entry per token (a phone paired twice gets one message). */
  const targets = (muted: string[] = []) => {
    const seen = new Map<string, string>()
    for (const d of ctx.devices.list()) if (d.push_token && !muted.includes(d.id) && !seen.has(d.push_token)) seen.set(d.push_token, d.id)
    return [...seen].map(([token, device]) => ({ token, device }))
  }

  const sendOne = async (s: PushSender, message: Message, token: string, device: string): Promise<SendResult> => {
    const r = await s.send(message)
    // One key for failure and recovery, or a device that failed once is never cleared.
    const target = `device ${device}`
    if (r.ok) failures.ok(target)
    else if (r.dead) {
      ctx.log.info(`push token of device ${device} is no longer valid (${r.code}); cleared`)
      await ctx.devices.clearPushToken(token).catch(() => {})
    } else failures.failed(target, `${r.code}: ${r.message}`)
    return r
  }

  return {
    ready,
    get credential() {
      return credential
    },
    describe() {
      if (!credential) {
        return {
          configured: false,
          detail: `no credentials (alerts are only logged); save a service-account key as ${settings.service_account_path} or run \`bridge push login\``,
        }
      }
      const tokens = targets().length
      return { configured: true, detail: `${describeCredential(credential)}; ${tokens} device${tokens === 1 ? '' : 's'} with a push token` }
    },
    async alert(ev: AlertEvent): Promise<Delivery> {
      await ready
      const list = targets(ev.test ? [] : ev.muted)
      if (!credential) {
        // Titles and bodies are an agent's words: escaped, so a newline or a terminal escape in them
        // cannot forge or hide a log line. 400 keeps a composed body (at most 240 characters) whole.
        ctx.log.info(`push (log only): ${ev.status} ${logSafe(ev.pane, 80)}: ${logSafe(ev.title)} — ${logSafe(ev.body, 400)} [${list.length} device(s)]`)
        return { sent: 0, total: list.length, enabled: false, note: 'no FCM credentials (see `bridge push status`)' }
      }
      if (!list.length || closed) return { sent: 0, total: 0, enabled: true, note: 'no device has registered an FCM token' }
      const s = await getSender()
      const data = alertData({
        pane: ev.pane,
        status: ev.status,
        serverId: ev.server_id,
        serverName: ev.server_name,
        agentTitle: ev.agent_title,
        title: ev.title,
        body: ev.body,
        seq: ev.seq,
        question: ev.question,
        options: ev.options,
        category: ev.category,
      })
      const alert = { tag: ev.tag, status: ev.status, title: ev.title, body: ev.body, data }
      const results = await Promise.all(
        list.map(async ({ token, device }) => {
          const [os, app] = alertMessages(token, alert, channels)
          // The OS-drawn message first, so the app's richer one replaces it; counted on the first.
          const r = await sendOne(s, os, token, device)
          if (r.ok || !r.dead) await sendOne(s, app, token, device)
          return r
        }),
      )
      const sent = results.filter((r) => r.ok).length
      const firstError = results.find((r) => !r.ok) as Extract<SendResult, { ok: false }> | undefined
      return { sent, total: list.length, enabled: true, ...(firstError ? { note: `${list.length - sent} failed: ${firstError.code}` } : {}) }
    },
    async dismiss(ev: DismissEvent): Promise<Delivery> {
      await ready
      const list = targets()
      if (!credential) {
        ctx.log.info(`push (log only): dismiss ${logSafe(ev.pane, 80)} [${list.length} device(s)]`)
        return { sent: 0, total: list.length, enabled: false }
      }
      if (!list.length || closed) return { sent: 0, total: 0, enabled: true }
      const s = await getSender()
      const results = await Promise.all(list.map(({ token, device }) => sendOne(s, dismissMessage(token, ev.server_id, ev.pane), token, device)))
      return { sent: results.filter((r) => r.ok).length, total: list.length, enabled: true }
    },
    async close() {
      closed = true
      await ready
      if (sender) await (await sender).close().catch(() => {})
      restoreQuota()
    },
  }
}

function resolveChannels(settings: FcmSettings, options: FcmOptions): AndroidChannels {
  const fromConfig: Partial<AndroidChannels> = settings.android_channels
  const pick = (k: keyof AndroidChannels) => {
    const v = options.android_channels?.[k] ?? fromConfig[k]
    return typeof v === 'string' && v.trim() ? v.trim() : DEFAULT_ANDROID_CHANNELS[k]
  }
  return { blocked: pick('blocked'), done: pick('done') }
}

export default defineNotifierPlugin<FcmOptions, FcmNotifier>({
  name: 'notify-fcm',
  channel: FCM_CHANNEL,
  // Each device's own subscriptions / tokens: a device may turn it off for itself.
  perDevice: true,
  create: createFcmNotifier,
})
