import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { PluginContext } from '../../core/plugin.ts'
import { API_VERSION, BRIDGE_VERSION, HERDR_PROTOCOL } from '../../core/version.ts'
import type { Readiness } from './ready.ts'
import { notifyChannels } from '../../lib/notify/channels.ts'
import { redactUrl } from '../../lib/notify/failures.ts'
import { gcloudAdcPath } from '../notify-fcm/credentials.ts'
import { VAPID_FILE } from '../notify-webpush/keys.ts'

export interface HealthState {
  startedAt: number
  /** Per herdr session, as the ingester last announced it. */
  sessions: Map<string, 'connected' | 'disconnected'>
  /** The cached readiness probe behind /readyz. */
  readiness: () => Promise<Readiness>
}

/** What `GET /admin/status` answers; herdr sessions are pinged (2 s each, in parallel). */
export async function status(ctx: PluginContext, state: HealthState) {
  const names = ctx.herdr.sessions()
  const pings = await Promise.allSettled(names.map((s) => ctx.herdr.call<{ version: string; protocol: number }>(s, 'ping', {}, { timeoutMs: 2000 })))
  const sessions = names.map((name, i) => {
    const p = pings[i]
    return {
      name,
      socket: ctx.herdr.socketPath(name),
      state: state.sessions.get(name) ?? 'connecting',
      answers: p.status === 'fulfilled',
      ...(p.status === 'fulfilled' ? { herdr_version: String(p.value.version), protocol: Number(p.value.protocol) } : { error: String((p.reason as Error)?.message ?? p.reason) }),
    }
  })
  const url = ctx.server.url ?? `http://${ctx.config.transport.addr}`
  return {
    version: BRIDGE_VERSION,
    api_version: API_VERSION,
    pid: process.pid,
    started_at: state.startedAt,
    uptime_s: Math.round((ctx.now() - state.startedAt) / 1000),
    listen: { addr: ctx.config.transport.addr, url },
    public_url: ctx.config.transport.public_url || url,
    data_dir: ctx.config.data_dir,
    herdr: { expected_protocol: HERDR_PROTOCOL, sessions },
    devices: ctx.devices.list().length,
    alerts: alertChannels(ctx),
  }
}

/** One alert channel in `GET /admin/status` (`bridge status`). */
export interface AlertChannel {
  channel: string
  /** Its notifier plugin runs in this bridge. */
  loaded: boolean
  /** It has what it needs to send: credentials, keys, a URL. */
  configured: boolean
  /** Where it sends, or what is missing, in one line. */
  detail: string
}

const isHttp = (url: string) => {
  try {
    return /^https?:$/.test(new URL(url).protocol)
  } catch {
    return false
  }
}

/**
 * Each alert channel as this daemon runs it: whether its notifier plugin is loaded, and whether
 * it has what it needs to send (from the daemon's own config, environment and data dir). FCM's
 * last resort, the metadata server, is not asked: a status answer makes no network request.
 */
function alertChannels(ctx: PluginContext): AlertChannel[] {
  const loaded = notifyChannels(ctx.bus)
  const { push, notify, data_dir } = ctx.config
  const fcmFile = [push.service_account_path, ctx.env.GOOGLE_APPLICATION_CREDENTIALS, gcloudAdcPath(ctx.env, ctx.home)].find((f) => f && existsSync(f))
  const tokens = ctx.devices.list().filter((d) => d.push_token).length
  const hooks = notify.webhooks.filter((h) => isHttp(h.url))
  const channels: Omit<AlertChannel, 'loaded'>[] = [
    fcmFile
      ? { channel: 'fcm', configured: true, detail: `credentials in ${fcmFile}; ${tokens} device${tokens === 1 ? '' : 's'} with a push token` }
      : {
          channel: 'fcm',
          configured: false,
          detail: `no credential file (alerts are only logged, unless on Google Cloud); save a service-account key as ${push.service_account_path}`,
        },
    existsSync(join(data_dir, VAPID_FILE))
      ? { channel: 'webpush', configured: true, detail: `VAPID key pair in ${join(data_dir, VAPID_FILE)}; browsers subscribe from the web app` }
      : { channel: 'webpush', configured: false, detail: 'no VAPID key pair (the bridge log says why)' },
    isHttp(notify.ntfy.url)
      ? { channel: 'ntfy', configured: true, detail: `topic ${redactUrl(notify.ntfy.url)}${notify.ntfy.token ? ' with a token' : ''}` }
      : {
          channel: 'ntfy',
          configured: false,
          detail: notify.ntfy.url ? 'notify.ntfy.url (BRIDGE_NTFY_URL) is not an http(s) URL' : 'not configured: set BRIDGE_NTFY_URL (or notify.ntfy.url)',
        },
    hooks.length
      ? { channel: 'webhook', configured: true, detail: hooks.map((h) => `${redactUrl(h.url)}${h.secret ? '' : ' (unsigned)'}`).join(', ') }
      : { channel: 'webhook', configured: false, detail: 'not configured: set BRIDGE_WEBHOOK_URL (or notify.webhooks)' },
  ]
  return channels.map((c) =>
    loaded.has(c.channel)
      ? { ...c, loaded: true }
      : { channel: c.channel, loaded: false, configured: false, detail: `not loaded: add the notify-${c.channel} plugin to bridge.config.ts` },
  )
}
