/**
 * A chat-room notification channel for herdr-bridge, as a third party publishes one: each alert
 * is one message posted to a Slack-style incoming webhook (`{"text": …}`; Slack, Mattermost,
 * Rocket.Chat and Discord's `/slack` endpoint take it). A chat message cannot be taken back, so
 * a dismissal sends nothing.
 *
 * Settings, in its own section of the bridge's config.json (or the environment):
 *   "chat": { "url": "https://hooks.example/…", "username": "herdr" }   BRIDGE_CHAT_URL, BRIDGE_CHAT_USERNAME
 *
 *   import { defineConfig, defaultPlugins } from 'herdr-bridge'
 *   import chat from 'herdr-bridge-notifier-chat'
 *   export default defineConfig({ plugins: [...defaultPlugins, chat] })
 */
import * as v from 'valibot'
import { defineNotifierPlugin, type AlertEvent, type Delivery } from 'herdr-bridge'

export const CHAT_CHANNEL = 'chat'

const settingsSchema = v.object({
  url: v.optional(v.pipe(v.string(), v.url('want an http(s) URL'), v.regex(/^https?:/i, 'want an http(s) URL'))),
  username: v.optional(v.pipe(v.string(), v.maxLength(80, 'at most 80 characters'))),
})

/** The message a room shows: bold title, the body, and a link to the agent when the bridge has a public URL. */
export function chatMessage(ev: AlertEvent, username?: string): { text: string; username?: string } {
  const link = /^https?:/.test(ev.url) ? ` <${ev.url}|Open>` : ''
  return { text: `*${ev.title}*\n${ev.body}${link}`, ...(username ? { username } : {}) }
}

export default defineNotifierPlugin<{ timeoutMs?: number }, ReturnType<typeof createChat>, v.InferOutput<typeof settingsSchema>>({
  name: 'notify-chat',
  channel: CHAT_CHANNEL,
  config: { section: 'chat', schema: settingsSchema, env: { url: 'BRIDGE_CHAT_URL', username: 'BRIDGE_CHAT_USERNAME' } },
  create: (_ctx, options, settings) => createChat(settings.url, settings.username, options.timeoutMs ?? 5000),
})

function createChat(url: string | undefined, username: string | undefined, timeoutMs: number) {
  const where = url ? new URL(url).host : ''
  return {
    describe: () => (url ? { configured: true, detail: `room webhook at ${where}` } : { configured: false, detail: 'not configured: set BRIDGE_CHAT_URL (or chat.url)' }),
    async alert(ev: AlertEvent): Promise<Delivery> {
      if (!url) return { sent: 0, total: 0, enabled: false, note: 'not configured: set BRIDGE_CHAT_URL (or chat.url)' }
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(chatMessage(ev, username)),
          signal: AbortSignal.timeout(timeoutMs),
        })
        await res.body?.cancel()
        return res.ok ? { sent: 1, total: 1, enabled: true } : { sent: 0, total: 1, enabled: true, note: `${where} answered ${res.status}` }
      } catch (err) {
        return { sent: 0, total: 1, enabled: true, note: `${where}: ${(err as Error).message}` }
      }
    },
  }
}
