import * as v from 'valibot'
import { getRequestIP } from 'h3'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'
import { logSafe, plainName } from '../../lib/strings.ts'
import { API_VERSION } from '../../core/version.ts'
import { createCodeBook, createFailureLimiter } from './codes.ts'

/** A full or read-only disk is the host's problem, said plainly; nothing was changed. */
function storageFailure(err: NodeJS.ErrnoException): never {
  fail(500, `cannot save the device registry: ${err.code ?? err.message}; nothing was changed`)
}

/**
 * Identity, pairing and device administration.
 *   POST /pair                 one-time code → device bearer
 *   POST /admin/pairing        admin (also ?token=) → {code, url}
 *   GET  /admin/devices        admin → devices without bearers
 *   POST /admin/devices/revoke admin {id}
 *   GET  /info                 device → {server_id, server_name, version}
 *   POST /register-token       device {token}
 */
interface PairingState {
  codes: ReturnType<typeof createCodeBook>
  limiter: ReturnType<typeof createFailureLimiter>
}
const route = defineBridgeRoute.with<PairingState>()

export default defineBridgePlugin({
  name: 'pairing',
  setup: (ctx): PairingState => ({ codes: createCodeBook(ctx.now), limiter: createFailureLimiter(ctx.now) }),
  routes: [
    route({
      method: 'POST',
      path: '/pair',
      auth: 'pairing',
      describe: 'Pair a device with a one-time code',
      response: v.object({ id: v.string(), bearer: v.string(), name: v.string(), server_id: v.string(), server_name: v.string() }),
      body: v.object({
        code: v.pipe(v.string('code: want a string'), v.nonEmpty('code: want the 8-hex pairing code')),
        device_name: v.nullish(v.pipe(v.string('device_name: want a string'), plainName('device_name'))),
        push_token: v.nullish(v.string('push_token: want a string')),
        // The reference mobile client sends the push token under this name.
        fcm_token: v.nullish(v.string('fcm_token: want a string')),
      }),
      async handler({ event, body, ctx, state: { limiter, codes } }) {
        const ip = getRequestIP(event) ?? 'unknown'
        const held = limiter.check(ip)
        if (held) fail(429, `too many failed pairing attempts${held.global ? ' on this bridge' : ''}; retry in ${held.wait} s`, { 'retry-after': String(held.wait) })
        if (!codes.redeem(body.code)) {
          limiter.fail(ip)
          ctx.log.info(`pairing refused for ${logSafe(ip, 64)}: invalid, expired or used code`)
          fail(403, 'invalid or expired pairing code')
        }
        const device = await ctx.devices.add({ name: body.device_name ?? undefined, push_token: body.push_token || body.fcm_token || '' }).catch(storageFailure)
        ctx.log.info(`paired device ${device.id} (${logSafe(device.name)})`)
        ctx.bus.publish('bridge', 'device_paired', { id: device.id, name: device.name })
        return { id: device.id, bearer: device.bearer, name: device.name, server_id: ctx.config.server_id, server_name: ctx.config.server_name }
      },
    }),
    route({
      method: 'POST',
      path: '/admin/pairing',
      auth: 'admin',
      queryToken: true,
      errors: 'json',
      describe: 'Issue a one-time pairing code (valid 5 minutes)',
      response: v.object({ code: v.string(), url: v.string(), expires_at: v.number() }),
      handler({ ctx, state: { codes } }) {
        const { code, expires_at } = codes.issue()
        const url = ctx.config.transport.public_url || ctx.server.url || `http://${ctx.config.transport.addr}`
        return { code, url: url.replace(/\/+$/, ''), expires_at }
      },
    }),
    defineBridgeRoute({
      method: 'GET',
      path: '/admin/devices',
      auth: 'admin',
      errors: 'json',
      describe: 'List paired devices (bearers are never returned)',
      response: v.object({
        devices: v.array(v.object({ id: v.string(), name: v.string(), paired_at: v.number(), last_seen: v.optional(v.number()), has_push_token: v.boolean() })),
      }),
      handler: ({ ctx }) => ({
        devices: ctx.devices.list().map((d) => ({
          id: d.id,
          name: d.name,
          paired_at: d.paired_at,
          ...(d.last_seen ? { last_seen: d.last_seen } : {}),
          has_push_token: !!d.push_token,
        })),
      }),
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/admin/devices/revoke',
      auth: 'admin',
      errors: 'json',
      describe: 'Revoke a device: its bearer stops working and its sockets close at once',
      response: v.object({ revoked: v.literal(true), id: v.string(), name: v.string() }),
      body: v.object({ id: v.pipe(v.string('id: want the device id'), v.nonEmpty('id: want the device id')) }),
      async handler({ body, ctx }) {
        const d = await ctx.devices.remove(body.id.trim()).catch(storageFailure)
        if (!d) fail(404, `no device ${body.id}`)
        ctx.sockets.closeDevice(d.id)
        // Channels that keep per-device state (web push subscriptions, mutes) drop it on this.
        ctx.bus.publish('bridge', 'device_revoked', { id: d.id, name: d.name })
        ctx.log.info(`revoked device ${d.id} (${logSafe(d.name)})`)
        return { revoked: true, id: d.id, name: d.name }
      },
    }),
    defineBridgeRoute({
      method: 'GET',
      path: '/info',
      auth: 'device',
      describe: 'Server identity and API level',
      response: v.object({ server_id: v.string(), server_name: v.string(), version: v.number() }),
      handler: ({ ctx }) => ({ server_id: ctx.config.server_id, server_name: ctx.config.server_name, version: API_VERSION }),
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/register-token',
      auth: 'device',
      describe: "Update this device's push token",
      response: v.object({ ok: v.literal(true) }),
      body: v.object({ token: v.string('token: want a string') }),
      async handler({ body, auth, ctx }) {
        if (auth.deviceId) await ctx.devices.setPushToken(auth.deviceId, body.token).catch(storageFailure)
        // The admin token stands for a browser without its own device: keep one named "web".
        else await ctx.devices.upsertNamed('web', body.token).catch(storageFailure)
        return { ok: true }
      },
    }),
  ],
})
