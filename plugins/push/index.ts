import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { fail, json } from '../../core/respond.ts'
import { DEVICE_REVOKED_EVENT, type Delivery } from '../../lib/notify/events.ts'
import { actingDevice } from '../../core/notify/device.ts'
import { notLoaded } from '../../core/notify/channels.ts'
import { composeAlert } from './compose.ts'
import { createPushService, type FanoutResult, type PushService } from './service.ts'
import { createMuteStore, type QuietHours } from './mutes.ts'
import { createChannelChoiceStore } from './channel-choice.ts'
import { readWebConfig } from './web-config.ts'
import { pluginConfig } from '../../core/plugin-config.ts'
import { configMs, configSection } from '../../lib/config-schema.ts'

/**
 * Alerts (the README's Alerts section): composition here, delivery in the notifier plugins (notify-*).
 *   POST /testpush           device → {ok:true, sent:true, …}: a sample alert through every channel
 *   POST /notify/test        device → {channels}: the same, reported per channel and per own subscription
 *   GET  /push-config        none   → the web client's Firebase web config (camelCase + vapidKey);
 *                                     404 when there is none (mobile clients rely on that)
 *   GET  /firebase-config    none   → the same (the path the reference client calls)
 *   GET  /notify/web         device → {push_config, webpush_key}: which of the two a browser can
 *                                     read here, so the web app asks for neither in vain
 *   POST /notify/mute        device {pane, until?} → this device gets no alerts for the pane
 *   POST /notify/unmute      device {pane}
 *   GET  /notify/mutes       device → this device's mutes
 *   GET  /notify/channels    device → {channels}: the running channels, whether each is per device
 *                                     and whether this device's alerts go out on it
 *   POST /notify/channels    device {channel, on} → the same: turns a per-device channel (Web Push,
 *                                     FCM) on or off for this device's alerts
 *   POST /admin/notify/test  admin {channel?} → one line per channel (`bridge notify test`)
 * Bus: multiplexer pane_agent_status_changed / pane_closed / pane_exited → an alert or a dismissal
 * handed to every running channel (the `notifyChannels` service); their deliveries add up to
 * bridge push_sent, and notification_cleared follows a dismissal.
 */

/** An agent that flips to blocked and back within this long is flapping, not waiting for you. */
export const DEFAULT_SETTLE_MS = 2000
/** At most one alert per agent in this window: a flapping agent alerts twice a minute at most. */
export const DEFAULT_COOLDOWN_MS = 30_000

/** Whole milliseconds from the environment; anything else leaves the file's value (as it always has). */
const envMs = (name: string) => ({ name, read: (text: string) => (/^\d+$/.test(text) ? Number(text) : undefined) })

/**
 * The alert pacing is this plugin's (not a channel's, not the core's): its keys of config.json's
 * `notify` section, checked at start.
 */
const pacingConfig = {
  section: 'notify',
  schema: configSection({ settle_ms: configMs, cooldown_ms: configMs }),
  env: { settle_ms: envMs('BRIDGE_ALERT_SETTLE_MS'), cooldown_ms: envMs('BRIDGE_ALERT_COOLDOWN_MS') },
}

const TESTPUSH_WAIT_MS = 6000
const NOTIFY_TEST_WAIT_MS = 8000
/** The notifier channel behind GET /webpush/key (notify-webpush). */
const WEBPUSH_CHANNEL = 'webpush'

const route = defineBridgeRoute.with<PushService>()

const webConfigSchema = v.object({
  apiKey: v.string(),
  authDomain: v.string(),
  projectId: v.string(),
  storageBucket: v.string(),
  messagingSenderId: v.string(),
  appId: v.string(),
  vapidKey: v.string(),
  measurementId: v.optional(v.string()),
})

const webConfig = ({ ctx }: { ctx: PluginContext }) => {
  const r = readWebConfig(ctx.config.data_dir)
  if (!r.ok) fail(r.status, r.message)
  // Public values (they ship inside every web client), but not worth caching across edits.
  return json(r.config, 200, { 'cache-control': 'no-store' })
}

const testAlert = (ctx: PluginContext) =>
  composeAlert({
    serverId: ctx.config.server_id,
    serverName: ctx.config.server_name,
    pane: 'test',
    status: 'done',
    seq: 0,
    agentTitle: 'Test notification',
    card: { headline: 'push notifications work' },
  })

/** A fan-out, or null when it did not finish within `ms` (delivery carries on). */
const within = (p: Promise<FanoutResult>, ms: number) => Promise.race([p, new Promise<null>((res) => setTimeout(() => res(null), ms).unref())])

const channelChoiceSchema = v.object({
  channels: v.array(
    v.object({
      channel: v.string(),
      /** Delivered to this device's own subscriptions or tokens: the device may turn it off. */
      per_device: v.boolean(),
      /** Set up to send at all (a URL, keys, credentials). */
      configured: v.boolean(),
      /** This device's alerts go out on it: per device, unless the device turned it off; bridge-wide, when configured. */
      on: v.boolean(),
    }),
  ),
})

/** The running channels as one device sees them (GET/POST /notify/channels). */
function channelChoices(ctx: PluginContext, state: PushService, device: string | undefined): v.InferOutput<typeof channelChoiceSchema> {
  const registry = ctx.services.notifyChannels
  const off = device ? state.choices.offFor(device) : []
  return {
    channels: registry.list().map((c) => {
      const perDevice = registry.perDevice(c.channel)
      return { channel: c.channel, per_device: perDevice, configured: c.configured, on: perDevice ? !off.includes(c.channel) : c.configured }
    }),
  }
}

const paneSchema = v.pipe(v.string('pane: want the pane id'), v.trim(), v.nonEmpty('pane: want the pane id'), v.maxLength(200, 'pane: at most 200 characters'))

/** `until`: unix milliseconds or an ISO 8601 time, in the future; absent = until unmuted. */
const untilSchema = v.optional(
  v.pipe(
    v.union([v.pipe(v.number(), v.integer(), v.minValue(0)), v.pipe(v.string(), v.isoTimestamp())], 'until: want unix milliseconds or an ISO 8601 time'),
    v.transform((u) => (typeof u === 'number' ? u : Date.parse(u))),
  ),
)

const targetSchema = v.object({ target: v.string(), device: v.optional(v.string()), ok: v.boolean(), answer: v.string() })
const deliverySchema = v.object({
  channel: v.string(),
  sent: v.number(),
  total: v.number(),
  enabled: v.boolean(),
  note: v.optional(v.string()),
  // Per subscription, what its push service answered (Web Push).
  targets: v.optional(v.array(targetSchema)),
})

/** "HH:MM", 00:00 to 23:59. */
const hhmm = (field: string) => v.pipe(v.string(`${field}: want HH:MM`), v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, `${field}: want HH:MM`))
const minutes = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3))
const clock = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`
const quietSchema = v.object({ from: v.string(), to: v.string(), utc_offset: v.number() })
const quietOut = (q: QuietHours | null) => (q ? { from: clock(q.from), to: clock(q.to), utc_offset: q.utc_offset } : null)

export default defineBridgePlugin({
  name: 'push',
  uses: ['notifyChannels'],
  setup: async (ctx): Promise<PushService> => {
    const pacing = pluginConfig(ctx, pacingConfig)
    return createPushService(
      ctx,
      await createMuteStore(ctx.storage, ctx.now),
      { settleMs: pacing.settle_ms ?? DEFAULT_SETTLE_MS, cooldownMs: pacing.cooldown_ms ?? DEFAULT_COOLDOWN_MS },
      await createChannelChoiceStore(ctx.storage),
    )
  },
  dispose: (svc) => svc.close(),
  subscribe: [
    // Opened right after setup: the watcher's start is the no-replay line. A late alert beats none.
    { source: 'multiplexer', type: ['pane_agent_status_changed', 'pane_closed', 'pane_exited'], limit: 10_000, lag: 'drop-oldest', handler: (ev, { state }) => state.handle(ev) },
    // herdr came back: agents blocked or done meanwhile alert now (once per state, alerted.ts).
    {
      source: 'bridge',
      type: 'multiplexer_connected',
      handler: (ev, { state }) => {
        if (typeof ev.payload?.session === 'string') state.reconnected(ev.payload.session)
      },
    },
    {
      source: 'bridge',
      type: DEVICE_REVOKED_EVENT,
      limit: 10_000,
      lag: 'drop-oldest',
      handler(ev, { state }) {
        if (typeof ev.payload?.id !== 'string') return
        void state.mutes.forgetDevice(ev.payload.id).catch(() => {})
        void state.choices.forgetDevice(ev.payload.id).catch(() => {})
      },
    },
  ],
  routes: [
    route({
      method: 'POST',
      path: '/testpush',
      auth: 'device',
      describe: 'Send a sample alert through every notification channel',
      // delivered/devices only when the fan-out finished within the wait.
      response: v.object({
        ok: v.literal(true),
        sent: v.literal(true),
        delivered: v.optional(v.pipe(v.number(), v.integer())),
        devices: v.optional(v.pipe(v.number(), v.integer())),
        push_enabled: v.boolean(),
      }),
      async handler({ ctx, state }) {
        // Answer within a phone's timeout even when a channel is slow; delivery carries on.
        const r = await within(state.fanoutAlert(testAlert(ctx), { seq: 0, test: true }), TESTPUSH_WAIT_MS)
        const enabled = r ? Object.values(r.channels).some((d) => d.enabled) : true
        return { ok: true, sent: true, ...(r ? { delivered: r.sent, devices: r.total } : {}), push_enabled: enabled }
      },
    }),
    route({
      method: 'POST',
      path: '/notify/test',
      auth: 'device',
      // This device's own alerts: a watching device may test them.
      role: 'viewer',
      errors: 'json',
      describe:
        "Send a sample alert through every channel and say per channel what went out, with this device's own Web Push subscriptions and what their push services answered (the web app's Send test alert)",
      response: v.object({ channels: v.array(deliverySchema) }),
      async handler({ ctx, state, auth }) {
        const r = await within(state.fanoutAlert(testAlert(ctx), { seq: 0, test: true }), TESTPUSH_WAIT_MS)
        if (!r) fail(504, `the channels are still sending after ${TESTPUSH_WAIT_MS / 1000} s; see the bridge log`)
        // A device sees its own subscriptions only (the admin token, every one).
        const mine = (d: Delivery) => (d.targets ? { targets: d.targets.filter((t) => !auth.deviceId || t.device === auth.deviceId) } : {})
        return { channels: Object.entries(r.channels).map(([channel, d]) => ({ channel, ...d, ...mine(d) })) }
      },
    }),
    route({
      method: 'POST',
      path: '/admin/notify/test',
      auth: 'admin',
      errors: 'json',
      describe: 'Send a test alert through each channel (or one) and say per channel whether it went out',
      // Any name here; the handler checks it against the running registry.
      body: v.object({ channel: v.optional(v.string('channel: want a channel name')) }),
      response: v.object({ channels: v.array(deliverySchema) }),
      async handler({ body, ctx, state }) {
        const registry = ctx.services.notifyChannels
        const known = registry.known()
        if (body.channel !== undefined && !known.includes(body.channel)) fail(400, `channel: want one of ${known.join(', ')}`)
        const wanted = body.channel ? [body.channel] : known
        const r = await within(state.fanoutAlert(testAlert(ctx), { seq: 0, test: true, channels: wanted }), NOTIFY_TEST_WAIT_MS)
        const line = (channel: string): Delivery & { channel: string } => {
          if (!registry.has(channel)) return { channel, sent: 0, total: 0, enabled: false, note: notLoaded(channel) }
          const d = r?.channels[channel]
          if (!d) return { channel, sent: 0, total: 0, enabled: true, note: `still sending after ${NOTIFY_TEST_WAIT_MS / 1000} s; see the bridge log` }
          return { channel, ...d }
        }
        return { channels: wanted.map(line) }
      },
    }),
    route({
      method: 'POST',
      path: '/notify/mute',
      auth: 'device',
      // This device's own alerts: a watching device may set them.
      role: 'viewer',
      errors: 'json',
      describe: "Stop this device's alerts for one pane, until a time or until unmuted",
      body: v.object({ pane: paneSchema, until: untilSchema }),
      response: v.object({ ok: v.literal(true), pane: v.string(), until: v.nullable(v.number()) }),
      async handler({ body, auth, ctx, state }) {
        if (body.until !== undefined && body.until <= ctx.now()) fail(400, 'until: that time has passed')
        const device = await actingDevice(ctx, auth)
        await state.mutes.mute(device, body.pane, body.until ?? 0)
        return { ok: true, pane: body.pane, until: body.until ?? null }
      },
    }),
    route({
      method: 'POST',
      path: '/notify/unmute',
      auth: 'device',
      // This device's own alerts: a watching device may set them.
      role: 'viewer',
      errors: 'json',
      describe: "Resume this device's alerts for one pane",
      body: v.object({ pane: paneSchema }),
      response: v.object({ ok: v.literal(true), pane: v.string(), was_muted: v.boolean() }),
      async handler({ body, auth, ctx, state }) {
        const device = await actingDevice(ctx, auth)
        return { ok: true, pane: body.pane, was_muted: await state.mutes.unmute(device, body.pane) }
      },
    }),
    route({
      method: 'GET',
      path: '/notify/quiet',
      auth: 'device',
      errors: 'json',
      describe: "This device's quiet hours (no alerts from any pane in that daily window), or null",
      response: v.object({ quiet: v.nullable(quietSchema) }),
      async handler({ auth, ctx, state }) {
        const device = auth.deviceId ?? ctx.devices.list().find((d) => d.name === 'web')?.id
        return { quiet: device ? quietOut(state.mutes.quiet(device)) : null }
      },
    }),
    route({
      method: 'POST',
      path: '/notify/quiet',
      auth: 'device',
      // This device's own alerts: a watching device may set them.
      role: 'viewer',
      errors: 'json',
      describe: 'Set this device\'s quiet hours {from: "HH:MM", to: "HH:MM", utc_offset: minutes ahead of UTC}; {} turns them off',
      body: v.object({
        from: v.optional(hhmm('from')),
        to: v.optional(hhmm('to')),
        utc_offset: v.optional(
          v.pipe(
            v.number('utc_offset: want minutes'),
            v.integer('utc_offset: want minutes'),
            v.minValue(-840, 'utc_offset: -840 to 840'),
            v.maxValue(840, 'utc_offset: -840 to 840'),
          ),
        ),
      }),
      response: v.object({ ok: v.literal(true), quiet: v.nullable(quietSchema) }),
      async handler({ body, auth, ctx, state }) {
        const device = await actingDevice(ctx, auth)
        if ((body.from === undefined) !== (body.to === undefined)) fail(400, 'want both from and to, or neither (off)')
        const q = body.from !== undefined && body.to !== undefined ? { from: minutes(body.from), to: minutes(body.to), utc_offset: body.utc_offset ?? 0 } : null
        await state.mutes.setQuiet(device, q)
        return { ok: true, quiet: quietOut(q) }
      },
    }),
    route({
      method: 'GET',
      path: '/notify/mutes',
      auth: 'device',
      errors: 'json',
      describe: "This device's muted panes: pane → until (unix ms, 0 = until unmuted)",
      response: v.object({ mutes: v.record(v.string(), v.number()) }),
      async handler({ auth, ctx, state }) {
        const device = auth.deviceId ?? ctx.devices.list().find((d) => d.name === 'web')?.id
        return { mutes: device ? state.mutes.of(device) : {} }
      },
    }),
    route({
      method: 'GET',
      path: '/notify/channels',
      auth: 'device',
      errors: 'json',
      describe:
        "The bridge's running alert channels: per_device ones (Web Push, FCM) this device may turn off for itself, bridge-wide ones (ntfy, webhooks) listed as they are; on says whether this device's alerts go out on each",
      response: channelChoiceSchema,
      handler: ({ auth, ctx, state }) => channelChoices(ctx, state, auth.deviceId ?? ctx.devices.list().find((d) => d.name === 'web')?.id),
    }),
    route({
      method: 'POST',
      path: '/notify/channels',
      auth: 'device',
      // This device's own alerts: a watching device may set them.
      role: 'viewer',
      errors: 'json',
      describe: 'Turn a per-device alert channel on or off for this device {channel, on}; answers the channel list as GET does',
      body: v.object({
        channel: v.pipe(v.string('channel: want a channel name'), v.trim(), v.nonEmpty('channel: want a channel name'), v.maxLength(64, 'channel: at most 64 characters')),
        on: v.boolean('on: want true or false'),
      }),
      response: channelChoiceSchema,
      async handler({ body, auth, ctx, state }) {
        const registry = ctx.services.notifyChannels
        if (!registry.has(body.channel)) fail(400, `channel: no channel ${body.channel} runs on this bridge (it runs ${registry.names().join(', ') || 'none'})`)
        if (!registry.perDevice(body.channel)) fail(400, `channel: ${body.channel} is bridge-wide: it is set in the bridge's config, not per device`)
        const device = await actingDevice(ctx, auth)
        await state.choices.set(device, body.channel, body.on)
        ctx.log.info(`device ${device} turned ${body.channel} alerts ${body.on ? 'on' : 'off'}`)
        return channelChoices(ctx, state, device)
      },
    }),
    defineBridgeRoute({
      method: 'GET',
      path: '/notify/web',
      auth: 'device',
      errors: 'json',
      describe:
        'How this bridge can alert a browser: push_config when GET /push-config serves a Firebase web config, webpush_key when the Web Push channel runs (GET /webpush/key)',
      response: v.object({ push_config: v.boolean(), webpush_key: v.boolean() }),
      handler: ({ ctx }) => ({ push_config: readWebConfig(ctx.config.data_dir).ok, webpush_key: ctx.services.notifyChannels.has(WEBPUSH_CHANNEL) }),
    }),
    defineBridgeRoute({ method: 'GET', path: '/push-config', auth: 'none', describe: "The web client's Firebase config", response: webConfigSchema, handler: webConfig }),
    defineBridgeRoute({
      method: 'GET',
      path: '/firebase-config',
      auth: 'none',
      describe: "The web client's Firebase config (reference client path)",
      response: webConfigSchema,
      handler: webConfig,
    }),
  ],
})
