import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { json } from '../../core/respond.ts'

/**
 * Liveness and readiness, for supervisors and load balancers (no auth, nothing secret):
 *   GET /healthz  200 while the process serves requests
 *   GET /readyz   200 when at least one herdr session answers ping, else 503 with a one-line
 *                 `reason` (the first session's failure and what to do), shown by the web app
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
  ],
})
