import * as v from 'valibot'
import { getRequestIP } from 'h3'
import { defineBridgePlugin, defineBridgeRoute, ROLES, type PluginContext } from '../../core/plugin.ts'
import type { Device } from '../../storage/devices.ts'
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
 *   GET  /admin/devices        admin → devices without bearers, with their roles
 *   POST /admin/devices/revoke admin {id}
 *   POST /admin/devices/role   admin {id, role}
 *   GET  /device               device → {id, name, role} of the caller
 *   GET  /devices, POST /devices/rename {id, name}, POST /devices/revoke {id}   owner devices
 *   GET  /info                 device → {server_id, server_name, version}
 *   POST /register-token       device {token}
 */
interface PairingState {
  codes: ReturnType<typeof createCodeBook>
  limiter: ReturnType<typeof createFailureLimiter>
}
const route = defineBridgeRoute.with<PairingState>()

export const roleSchema = v.picklist(ROLES, 'role: want viewer, default or owner')
const deviceSchema = v.object({ id: v.string(), name: v.string(), role: roleSchema, paired_at: v.number(), last_seen: v.optional(v.number()), has_push_token: v.boolean() })

const deviceIdSchema = v.pipe(v.string('id: want the device id'), v.nonEmpty('id: want the device id'))

/** Revokes a device (admin or owner): its bearer stops working and its sockets close at once. */
async function revoke(ctx: PluginContext, id: string) {
  const d = await ctx.devices.remove(id.trim()).catch(storageFailure)
  if (!d) fail(404, `no device ${id}`)
  ctx.sockets.closeDevice(d.id)
  // Channels that keep per-device state (web push subscriptions, mutes) drop it on this.
  ctx.bus.publish('bridge', 'device_revoked', { id: d.id, name: d.name })
  ctx.log.info(`revoked device ${d.id} (${logSafe(d.name)})`)
  return { revoked: true as const, id: d.id, name: d.name }
}

/** A device as listed: never its bearer or push token. */
export const publicDevice = (d: Device): v.InferOutput<typeof deviceSchema> => ({
  id: d.id,
  name: d.name,
  role: d.role,
  paired_at: d.paired_at,
  ...(d.last_seen ? { last_seen: d.last_seen } : {}),
  has_push_token: !!d.push_token,
})

export default defineBridgePlugin({
  name: 'pairing',
  setup: (ctx): PairingState => ({ codes: createCodeBook(ctx.now), limiter: createFailureLimiter(ctx.now) }),
  routes: [
    route({
      method: 'POST',
      path: '/pair',
      auth: 'pairing',
      describe: 'Pair a device with a one-time code',
      response: v.object({ id: v.string(), bearer: v.string(), name: v.string(), server_id: v.string(), server_name: v.string(), role: roleSchema }),
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
        const role = codes.claim(body.code)
        if (!role) {
          limiter.fail(ip)
          ctx.log.info(`pairing refused for ${logSafe(ip, 64)}: invalid, expired or used code`)
          fail(403, 'invalid or expired pairing code')
        }
        const device = await ctx.devices.add({ name: body.device_name ?? undefined, push_token: body.push_token || body.fcm_token || '', role }).catch(storageFailure)
        ctx.log.info(`paired device ${device.id} (${logSafe(device.name)}) as ${device.role}`)
        ctx.bus.publish('bridge', 'device_paired', { id: device.id, name: device.name })
        return { id: device.id, bearer: device.bearer, name: device.name, server_id: ctx.config.server_id, server_name: ctx.config.server_name, role: device.role }
      },
    }),
    route({
      method: 'POST',
      path: '/admin/pairing',
      auth: 'admin',
      queryToken: true,
      errors: 'json',
      describe: 'Issue a one-time pairing code (valid 5 minutes) for a device of the given role (default `default`)',
      response: v.object({ code: v.string(), url: v.string(), expires_at: v.number() }),
      body: v.object({ role: v.optional(roleSchema) }),
      handler({ body, ctx, state: { codes } }) {
        const { code, expires_at } = codes.issue(body.role)
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
        devices: v.array(deviceSchema),
      }),
      handler: ({ ctx }) => ({ devices: ctx.devices.list().map(publicDevice) }),
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/admin/devices/role',
      auth: 'admin',
      errors: 'json',
      describe: "Change a device's role (viewer, default, owner); it applies to its next request",
      response: v.object({ id: v.string(), name: v.string(), role: roleSchema }),
      body: v.object({ id: deviceIdSchema, role: roleSchema }),
      async handler({ body, ctx }) {
        const d = await ctx.devices.update(body.id.trim(), { role: body.role }).catch(storageFailure)
        if (!d) fail(404, `no device ${body.id}`)
        ctx.log.info(`device ${d.id} (${logSafe(d.name)}) is now ${d.role}`)
        return { id: d.id, name: d.name, role: d.role }
      },
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/admin/devices/revoke',
      auth: 'admin',
      errors: 'json',
      describe: 'Revoke a device: its bearer stops working and its sockets close at once',
      response: v.object({ revoked: v.literal(true), id: v.string(), name: v.string() }),
      body: v.object({ id: deviceIdSchema }),
      handler: ({ body, ctx }) => revoke(ctx, body.id),
    }),
    defineBridgeRoute({
      method: 'GET',
      path: '/device',
      auth: 'device',
      describe: 'This device: its id, name and role (the admin token reads as an owner named "admin")',
      response: v.object({ id: v.string(), name: v.string(), role: roleSchema }),
      handler: ({ auth, ctx }) => {
        const d = auth.deviceId ? ctx.devices.get(auth.deviceId) : undefined
        return d ? { id: d.id, name: d.name, role: d.role } : { id: '', name: 'admin', role: 'owner' as const }
      },
    }),
    defineBridgeRoute({
      method: 'GET',
      path: '/devices',
      auth: 'device',
      role: 'owner',
      describe: 'List paired devices from an owner device (bearers are never returned)',
      response: v.object({ devices: v.array(deviceSchema) }),
      handler: ({ ctx }) => ({ devices: ctx.devices.list().map(publicDevice) }),
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/devices/rename',
      auth: 'device',
      role: 'owner',
      describe: 'Rename a paired device from an owner device',
      response: v.object({ id: v.string(), name: v.string() }),
      body: v.object({
        id: deviceIdSchema,
        name: v.pipe(v.string('name: want a string'), v.trim(), v.nonEmpty('name: want a name'), v.maxLength(100, 'name: at most 100 characters'), plainName('name')),
      }),
      async handler({ body, ctx }) {
        const d = await ctx.devices.update(body.id.trim(), { name: body.name }).catch(storageFailure)
        if (!d) fail(404, `no device ${body.id}`)
        return { id: d.id, name: d.name }
      },
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/devices/revoke',
      auth: 'device',
      role: 'owner',
      describe: 'Revoke a paired device from an owner device, as `bridge devices revoke` does',
      response: v.object({ revoked: v.literal(true), id: v.string(), name: v.string() }),
      body: v.object({ id: deviceIdSchema }),
      handler: ({ body, ctx }) => revoke(ctx, body.id),
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
      // A watching device gets alerts too.
      role: 'viewer',
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
