import type { PluginContext } from '../../core/plugin.ts'
import { API_VERSION, BRIDGE_VERSION, HERDR_PROTOCOL } from '../../core/version.ts'
import type { Readiness } from './ready.ts'
import { notLoaded } from '../../core/notify/channels.ts'

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
    ...(ctx.devices.unsaved() ? { devices_unsaved: ctx.devices.unsaved()! } : {}),
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

/**
 * Each alert channel as this daemon runs it (the `notifyChannels` registry): whether its notifier
 * plugin is loaded and, from the notifier itself, whether it has what it needs to send. The
 * shipped channels are named even when not loaded. No network request is made.
 */
function alertChannels(ctx: PluginContext): AlertChannel[] {
  const channels = ctx.services.notifyChannels
  return channels.known().map((channel) => {
    const s = channels.status(channel)
    return s ? { channel, loaded: true, ...s } : { channel, loaded: false, configured: false, detail: notLoaded(channel) }
  })
}
