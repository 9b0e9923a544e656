import type { PluginContext } from '../../core/plugin.ts'
import { API_VERSION, BRIDGE_VERSION, HERDR_PROTOCOL } from '../../core/version.ts'

interface Credential {
  type: string
  source: string
  path?: string
  projectId: string
}

/** What `GET /admin/status` answers; herdr sessions are pinged (2 s each, in parallel). */
export async function status(ctx: PluginContext) {
  const startedAt = (ctx.services.get('health.started_at') as number | undefined) ?? ctx.now()
  const ingest = ctx.services.get('herdr.ingest') as { state(): Record<string, string> } | undefined
  const states = ingest?.state() ?? {}
  const names = ctx.herdr.sessions()
  const pings = await Promise.allSettled(names.map((s) => ctx.herdr.call<{ version: string; protocol: number }>(s, 'ping', {}, { timeoutMs: 2000 })))
  const sessions = names.map((name, i) => {
    const p = pings[i]
    return {
      name,
      socket: ctx.herdr.socketPath(name),
      state: states[name] ?? 'unknown',
      answers: p.status === 'fulfilled',
      ...(p.status === 'fulfilled' ? { herdr_version: String(p.value.version), protocol: Number(p.value.protocol) } : { error: String((p.reason as Error)?.message ?? p.reason) }),
    }
  })
  const url = (ctx.services.get('listen.url') as string | undefined) ?? `http://${ctx.config.transport.addr}`
  return {
    version: BRIDGE_VERSION,
    api_version: API_VERSION,
    pid: process.pid,
    started_at: startedAt,
    uptime_s: Math.round((ctx.now() - startedAt) / 1000),
    listen: { addr: ctx.config.transport.addr, url },
    public_url: ctx.config.transport.public_url || url,
    data_dir: ctx.config.data_dir,
    herdr: { expected_protocol: HERDR_PROTOCOL, sessions },
    devices: ctx.devices.list().length,
    push: { credential: await pushCredential(ctx) },
  }
}

/** The push plugin's credential, described without key material (null: none, or push is off). */
async function pushCredential(ctx: PluginContext): Promise<string | null> {
  const push = ctx.services.get('push') as { ready: Promise<void>; credential: Credential | null } | undefined
  if (!push) return null
  await Promise.race([push.ready, new Promise((r) => setTimeout(r, 1000))])
  const c = push.credential
  if (!c) return null
  return `${c.type.replace('_', ' ')} from ${c.source === 'metadata' ? 'the metadata server' : c.path}, project ${c.projectId}`
}
