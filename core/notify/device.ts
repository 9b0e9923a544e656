import type { AuthInfo, PluginContext } from '../plugin.ts'

/**
 * The device a request acts for. The admin token stands for a browser without its own pairing:
 * it acts as the device named `web` (created on first use, as `/register-token` does), so its
 * subscriptions and mutes go when that device is revoked, like any other's.
 */
export async function actingDevice(ctx: Pick<PluginContext, 'devices'>, auth: AuthInfo): Promise<string> {
  if (auth.deviceId) return auth.deviceId
  const web = ctx.devices.list().find((d) => d.name === 'web')
  if (web) return web.id
  return (await ctx.devices.upsertNamed('web', '')).id
}
