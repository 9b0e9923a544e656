import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { fail, json } from '../../core/respond.ts'
import { composeAlert } from './compose.ts'
import { createPushService, type PushOptions, type PushService } from './service.ts'
import { readWebConfig } from './web-config.ts'

/**
 * Push notifications (spec 1 §3, §4.1, §6).
 *   POST /testpush         device → {ok:true, sent:true}: a sample alert to every device
 *   GET  /push-config      none   → the web client's Firebase web config (camelCase + vapidKey)
 *   GET  /firebase-config  none   → the same (the path the reference client calls)
 * Bus: multiplexer pane_agent_status_changed / pane_closed / pane_exited → alerts and dismissals;
 * publishes bridge push_sent after each alert fan-out and notification_cleared after a dismiss.
 * POST /register-token lives in the pairing plugin (it owns the device registry routes).
 */

const TESTPUSH_WAIT_MS = 6000
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

export default defineBridgePlugin({
  name: 'push',
  setup: (ctx, options: PushOptions | undefined): PushService => createPushService(ctx, options ?? {}),
  dispose: (svc) => svc.close(),
  // Opened right after setup: the watcher's start is the no-replay line. A late alert beats none.
  subscribe: [{ source: 'multiplexer', type: ['pane_agent_status_changed', 'pane_closed', 'pane_exited'], limit: 10_000, lag: 'drop-oldest', handler: (ev, { state }) => state.handle(ev) }],
  routes: [
    route({
      method: 'POST',
      path: '/testpush',
      auth: 'device',
      describe: 'Send a sample alert to every registered device',
      // delivered/devices only when the fan-out finished within the wait.
      response: v.object({
        ok: v.literal(true),
        sent: v.literal(true),
        delivered: v.optional(v.pipe(v.number(), v.integer())),
        devices: v.optional(v.pipe(v.number(), v.integer())),
        push_enabled: v.boolean(),
      }),
      async handler({ ctx, state: svc }) {
        const alert = composeAlert({
          serverId: ctx.config.server_id,
          serverName: ctx.config.server_name,
          pane: 'test',
          status: 'done',
          seq: 0,
          agentTitle: 'Test notification',
          card: { headline: 'push notifications work' },
        })
        // Answer within a phone's timeout even when FCM is slow; delivery carries on.
        const r = await Promise.race([svc.fanoutAlert(alert), new Promise<null>((res) => setTimeout(() => res(null), TESTPUSH_WAIT_MS).unref())])
        return { ok: true, sent: true, ...(r ? { delivered: r.sent, devices: r.total } : {}), push_enabled: !!svc.credential }
      },
    }),
    defineBridgeRoute({ method: 'GET', path: '/push-config', auth: 'none', describe: "The web client's Firebase config", response: webConfigSchema, handler: webConfig }),
    defineBridgeRoute({ method: 'GET', path: '/firebase-config', auth: 'none', describe: "The web client's Firebase config (reference client path)", response: webConfigSchema, handler: webConfig }),
  ],
})
