import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { json } from '../../core/respond.ts'
import { status, type HealthState } from './status.ts'

/**
 * Liveness and readiness, for supervisors and load balancers (no auth, nothing secret):
 *   GET /healthz       200 while the process serves requests
 *   GET /readyz        200 when at least one herdr session answers ping, else 503 with a
 *                      one-line `reason` (the first session's failure and what to do)
 *   GET /admin/status  admin → what `bridge status` shows: version, uptime, addresses, herdr
 *                      sessions with their protocol and state, devices, data dir
 * Bus: bridge multiplexer_connected / multiplexer_disconnected → each session's state.
 */
export default defineBridgePlugin({
  name: 'health',
  setup: (ctx): HealthState => ({ startedAt: ctx.now(), sessions: new Map() }),
  subscribe: [
    {
      source: 'bridge',
      type: ['multiplexer_connected', 'multiplexer_disconnected'],
      handler: (ev, { state }) => void state.sessions.set(String(ev.payload?.session ?? 'default'), ev.type === 'multiplexer_connected' ? 'connected' : 'disconnected'),
    },
  ],
  routes: [
    defineBridgeRoute({ method: 'GET', path: '/healthz', auth: 'none', describe: 'Process is up', response: v.object({ ok: v.literal(true) }), handler: () => ({ ok: true }) }),
    defineBridgeRoute({
      method: 'GET',
      path: '/readyz',
      auth: 'none',
      describe: 'herdr is reachable for at least one session',
      response: v.object({ ok: v.boolean(), sessions: v.array(v.string()), reason: v.optional(v.string()) }),
      async handler({ ctx }) {
        const sessions = ctx.herdr.sessions()
        const pings = await Promise.allSettled(sessions.map((s) => ctx.herdr.call<{ protocol: number }>(s, 'ping', {}, { timeoutMs: 2000 })))
        const ready = sessions.filter((_, i) => pings[i].status === 'fulfilled')
        if (ready.length) return json({ ok: true, sessions: ready }, 200)
        const failed = pings.find((p): p is PromiseRejectedResult => p.status === 'rejected')
        const why = failed ? String((failed.reason as Error)?.message ?? failed.reason).split('\n')[0] : 'no herdr session found'
        return json({ ok: false, sessions: [], reason: `${why}; start herdr on this machine (or point the bridge at it) and this clears by itself` }, 503)
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
        alerts: v.array(v.object({ channel: v.string(), loaded: v.boolean(), configured: v.boolean(), detail: v.string() })),
      }),
      handler: ({ ctx, state }) => status(ctx, state),
    }),
  ],
})
