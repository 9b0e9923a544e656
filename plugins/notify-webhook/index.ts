import { createHmac } from 'node:crypto'
import * as v from 'valibot'
import type { Dispatcher } from 'undici'
import type { PluginContext } from '../../core/plugin.ts'
import { defineNotifierPlugin, type Notifier } from '../../core/notify/notifier.ts'
import { createFailureLog, redactUrl } from '../../lib/notify/failures.ts'
import { postWithRetry } from '../../lib/notify/http.ts'
import type { AlertEvent, Delivery, DismissEvent } from '../../lib/notify/events.ts'
import { configSection, configText } from '../../lib/config-schema.ts'

/**
 * Signed JSON webhooks: `agent.blocked`, `agent.done` (with `url`, the agent in the web app) and `agent.cleared`, each a POST with
 * `X-Bridge-Signature: sha256=<hex HMAC-SHA256 of the exact body>` and `X-Bridge-Event`.
 * 5 s per try, three tries on network errors and 5xx, none on 4xx.
 * Config `notify.webhooks: [{url, secret}]`, or BRIDGE_WEBHOOK_URL (comma-separated, replacing the
 * file's list) + BRIDGE_WEBHOOK_SECRET (the secret of those, or of the file's hooks that have
 * none), checked at start by this plugin.
 */

export const WEBHOOK_CHANNEL = 'webhook'

export interface WebhookOptions {
  backoffMs?: number[]
  /** Per try; 5 s by default (tests lower it). */
  timeoutMs?: number
  dispatcher?: Dispatcher
}

/** The plugin's part of config.json's `notify` section. */
const settingsSchema = configSection({ webhooks: v.nullish(v.array(configSection({ url: configText, secret: configText }))) })
export type WebhookSettings = v.InferOutput<typeof settingsSchema>

const secretOf = (env: NodeJS.ProcessEnv) => (env.BRIDGE_WEBHOOK_SECRET ?? '').trim()

export type WebhookEvent = 'agent.blocked' | 'agent.done' | 'agent.cleared'

export const signature = (secret: string, body: string | Buffer) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

export function webhookBody(ev: AlertEvent | DismissEvent, event: WebhookEvent): string {
  const alert = 'status' in ev ? ev : null
  return JSON.stringify({
    event,
    tag: ev.tag,
    server_id: ev.server_id,
    pane: ev.pane,
    agent: ev.agent,
    title: ev.title,
    body: alert?.body ?? '',
    // Opens the agent in the web app (an alert's link; a dismissal has none).
    ...(alert?.url && /^https?:/.test(alert.url) ? { url: alert.url } : {}),
    ts: ev.ts,
  })
}

function createWebhookNotifier(ctx: PluginContext, options: WebhookOptions, settings: WebhookSettings): Notifier {
  const failures = createFailureLog(ctx.log, WEBHOOK_CHANNEL)
  const configured = (settings.webhooks ?? []).flatMap((w) => (w.url ? [{ url: w.url, secret: w.secret || secretOf(ctx.env) }] : []))
  const hooks = configured.filter((h) => {
    try {
      const u = new URL(h.url)
      if (u.protocol === 'https:' || u.protocol === 'http:') return true
    } catch {}
    ctx.log.error(`webhook ${redactUrl(h.url)} is not an http(s) URL; skipped`)
    return false
  })
  for (const h of hooks) {
    ctx.log.info(`alerts go to the webhook at ${redactUrl(h.url)}${h.secret ? '' : ' (unsigned: set BRIDGE_WEBHOOK_SECRET or its secret)'}`)
  }

  const send = async (ev: AlertEvent | DismissEvent, event: WebhookEvent): Promise<Delivery> => {
    if (!hooks.length) return { sent: 0, total: 0, enabled: false, note: 'not configured: set BRIDGE_WEBHOOK_URL (or notify.webhooks)' }
    const body = webhookBody(ev, event)
    const results = await Promise.all(
      hooks.map(async (h, i) => {
        const headers: Record<string, string> = { 'content-type': 'application/json', 'X-Bridge-Event': event, 'user-agent': 'herdr-bridge' }
        if (h.secret) headers['X-Bridge-Signature'] = signature(h.secret, body)
        const r = await postWithRetry(h.url, { headers, body, timeoutMs: options.timeoutMs ?? 5000, backoffMs: options.backoffMs, dispatcher: options.dispatcher })
        const label = `#${i + 1} ${redactUrl(h.url)}`
        if (r.ok) failures.ok(h.url, label)
        else failures.failed(h.url, r.error, label)
        return r
      }),
    )
    const sent = results.filter((r) => r.ok).length
    const bad = results.find((r) => !r.ok)
    return { sent, total: hooks.length, enabled: true, ...(bad && !bad.ok ? { note: bad.error } : {}) }
  }

  return {
    describe: () =>
      hooks.length
        ? { configured: true, detail: hooks.map((h) => `${redactUrl(h.url)}${h.secret ? '' : ' (unsigned)'}`).join(', ') }
        : { configured: false, detail: 'not configured: set BRIDGE_WEBHOOK_URL (or notify.webhooks)' },
    alert: (ev) => send(ev, ev.status === 'blocked' ? 'agent.blocked' : 'agent.done'),
    dismiss: (ev) => send(ev, 'agent.cleared'),
  }
}

export default defineNotifierPlugin<WebhookOptions, Notifier, WebhookSettings>({
  name: 'notify-webhook',
  channel: WEBHOOK_CHANNEL,
  config: {
    section: 'notify',
    schema: settingsSchema,
    env: {
      webhooks: {
        name: 'BRIDGE_WEBHOOK_URL',
        read: (text, _file, env) =>
          text
            .split(',')
            .map((url) => url.trim())
            .filter(Boolean)
            .map((url) => ({ url, secret: secretOf(env) })),
      },
    },
  },
  create: createWebhookNotifier,
})
