import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { payloadText } from '../../core/bus.ts'
import { json } from '../../core/respond.ts'
import { status, type HealthState } from './status.ts'
import { notReadyReason, readinessProbe } from './ready.ts'

/**
 * Liveness and readiness, for supervisors and load balancers (no auth, nothing secret):
 *   GET /healthz       200 while the process serves requests
 *   GET /readyz        200 when at least one herdr session answers ping, else 503 with a
 *                      one-line `reason` (the first session's failure, naming its socket, for a
 *                      paired device or the admin; generic for anyone else; and what to do).
 *                      One answer serves every caller for a second (ready.ts)
 *   GET /admin/status  admin → what `bridge status` shows: version, uptime, addresses, herdr
 *                      sessions with their protocol and state, devices, data dir
 * Bus: bridge multiplexer_connected / multiplexer_disconnected → each session's state.
 */
export default defineBridgePlugin({
  name: 'health',
  // /admin/status lists the alert channels.
  uses: ['notifyChannels'],
  setup: (ctx): HealthState => ({ startedAt: ctx.now(), sessions: new Map(), readiness: readinessProbe(ctx) }),
  subscribe: [
    {
      source: 'bridge',
      type: ['multiplexer_connected', 'multiplexer_disconnected'],
      handler: (ev, { state }) => void state.sessions.set(payloadText(ev, 'session', 'default'), ev.type === 'multiplexer_connected' ? 'connected' : 'disconnected'),
    },
  ],
  routes: [
    defineBridgeRoute({ method: 'GET', path: '/healthz', auth: 'none', describe: 'Process is up', response: v.object({ ok: v.literal(true) }), handler: () => ({ ok: true }) }),
    defineBridgeRoute.with<HealthState>()({
      method: 'GET',
      path: '/readyz',
      auth: 'none',
      describe: 'herdr is reachable for at least one session',
      response: v.object({ ok: v.boolean(), sessions: v.array(v.string()), reason: v.optional(v.string()) }),
      async handler({ ctx, state, event }) {
        const r = await state.readiness()
        if (r.ready.length) return json({ ok: true, sessions: r.ready }, 200)
        return json({ ok: false, sessions: [], reason: notReadyReason(r, event.req as Request, ctx) }, 503)
      },
    }),
    defineBridgeRoute.with<HealthState>()({
      method: 'GET',
      path: '/admin/status',
      auth: 'admin',
      errors: 'json',
      describe: 'Daemon status for `bridge status`',
      response: v.object({
        version: v.string(),
        api_version: v.number(),
        pid: v.number(),
        started_at: v.number(),
        uptime_s: v.number(),
        listen: v.object({ addr: v.string(), url: v.string() }),
        public_url: v.string(),
        data_dir: v.string(),
        herdr: v.object({
          expected_protocol: v.number(),
          sessions: v.array(
            v.object({
              name: v.string(),
              socket: v.string(),
              state: v.picklist(['connected', 'disconnected', 'connecting']),
              answers: v.boolean(),
              herdr_version: v.optional(v.string()),
              protocol: v.optional(v.number()),
              error: v.optional(v.string()),
            }),
          ),
        }),
        devices: v.number(),
        devices_unsaved: v.optional(v.pipe(v.string(), v.description('a revocation in force that is not yet on disk (retried); absent when the registry is saved'))),
        alerts: v.array(v.object({ channel: v.string(), loaded: v.boolean(), configured: v.boolean(), detail: v.string() })),
      }),
      handler: ({ ctx, state }) => status(ctx, state),
    }),
  ],
})
