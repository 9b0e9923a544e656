import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { json } from '../../core/respond.ts'

/**
 * Liveness and readiness, for supervisors and load balancers (no auth, nothing secret):
 *   GET /healthz  200 while the process serves requests
 *   GET /readyz   200 when at least one herdr session answers ping, else 503
 */
export default defineBridgePlugin({
  name: 'health',
  routes: [
    defineBridgeRoute({ method: 'GET', path: '/healthz', auth: 'none', describe: 'Process is up', response: v.object({ ok: v.literal(true) }), handler: () => ({ ok: true }) }),
    defineBridgeRoute({
      method: 'GET',
      path: '/readyz',
      auth: 'none',
      describe: 'herdr is reachable for at least one session',
      response: v.object({ ok: v.boolean(), sessions: v.array(v.string()) }),
      async handler({ ctx }) {
        const sessions = ctx.herdr.sessions()
        const pings = await Promise.allSettled(sessions.map((s) => ctx.herdr.call<{ protocol: number }>(s, 'ping', {}, { timeoutMs: 2000 })))
        const ready = sessions.filter((_, i) => pings[i].status === 'fulfilled')
        return json({ ok: ready.length > 0, sessions: ready }, ready.length ? 200 : 503)
      },
    }),
  ],
})
