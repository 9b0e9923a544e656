import * as v from 'valibot'
import type { Dispatcher } from 'undici'
import type { PluginContext } from '../../core/plugin.ts'
import { defineNotifierPlugin, type Notifier } from '../../core/notify/notifier.ts'
import { createFailureLog, redactUrl } from '../../lib/notify/failures.ts'
import { postWithRetry } from '../../lib/notify/http.ts'
import type { AlertEvent, Delivery } from '../../lib/notify/events.ts'
import { configSection, configText } from '../../lib/config-schema.ts'

/**
 * ntfy (ntfy.sh or a self-hosted server): each alert is a POST to the topic URL, the body as the
 * message. No dismissal: not every ntfy version can take a message back.
 * Config `notify.ntfy.url` / `notify.ntfy.token`, or BRIDGE_NTFY_URL / BRIDGE_NTFY_TOKEN, checked
 * at start by this plugin.
 */

export const NTFY_CHANNEL = 'ntfy'

export interface NtfyOptions {
  backoffMs?: number[]
  dispatcher?: Dispatcher
}

/** The plugin's part of config.json's `notify` section. */
const settingsSchema = configSection({ ntfy: v.nullish(configSection({ url: configText, token: configText })) })
export type NtfySettings = v.InferOutput<typeof settingsSchema>

/** Headers are Latin-1 on the wire; anything else goes as RFC 2047, which ntfy decodes. */
export const headerText = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`)

export function ntfyRequest(ev: AlertEvent, token: string, publicUrl: string): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {
    'content-type': 'text/plain; charset=utf-8',
    Title: headerText(ev.title),
    Priority: ev.status === 'blocked' ? 'high' : 'default',
    Tags: ev.status,
  }
  // Only a public URL is worth a click: a loopback address means nothing on the phone.
  if (publicUrl) headers.Click = ev.url
  if (token) headers.Authorization = `Bearer ${token}`
  return { headers, body: ev.body }
}

function createNtfyNotifier(ctx: PluginContext, options: NtfyOptions, settings: NtfySettings): Notifier {
  const url = settings.ntfy?.url ?? ''
  const token = settings.ntfy?.token ?? ''
  const failures = createFailureLog(ctx.log, NTFY_CHANNEL)
  let target = ''
  if (url) {
    try {
      const u = new URL(url)
      if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error()
      target = redactUrl(url)
      ctx.log.info(`alerts go to the ntfy topic at ${target}`)
    } catch {
      ctx.log.error('notify.ntfy.url (BRIDGE_NTFY_URL) is not an http(s) URL; ntfy is off')
    }
  }
  const enabled = !!target
  return {
    describe: () =>
      enabled
        ? { configured: true, detail: `topic ${target}${token ? ' with a token' : ''}` }
        : { configured: false, detail: url ? 'notify.ntfy.url (BRIDGE_NTFY_URL) is not an http(s) URL' : 'not configured: set BRIDGE_NTFY_URL (or notify.ntfy.url)' },
    async alert(ev): Promise<Delivery> {
      if (!enabled) return { sent: 0, total: 0, enabled: false, note: 'not configured: set BRIDGE_NTFY_URL (or notify.ntfy.url)' }
      // A URL the phone reaches: public_url, else the latest `bridge pair --url`.
      const { headers, body } = ntfyRequest(ev, token, ctx.config.transport.public_url || (ctx.config.transport.pair_urls ?? []).at(-1) || '')
      const r = await postWithRetry(url, { headers, body, timeoutMs: 5000, backoffMs: options.backoffMs, dispatcher: options.dispatcher })
      if (r.ok) failures.ok(url, target)
      else failures.failed(url, r.error, target)
      return { sent: r.ok ? 1 : 0, total: 1, enabled: true, ...(r.ok ? {} : { note: r.error }) }
    },
  }
}

export default defineNotifierPlugin<NtfyOptions, Notifier, NtfySettings>({
  name: 'notify-ntfy',
  channel: NTFY_CHANNEL,
  config: { section: 'notify', schema: settingsSchema, env: { 'ntfy.url': 'BRIDGE_NTFY_URL', 'ntfy.token': 'BRIDGE_NTFY_TOKEN' } },
  create: createNtfyNotifier,
})
