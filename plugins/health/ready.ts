import type { PluginContext } from '../../core/plugin.ts'
import { authenticate, credentialOf } from '../../core/auth.ts'

/**
 * Readiness for `GET /readyz`, which anyone may call: one round of pings answers every caller
 * for a second (and callers arriving while it runs wait for it), so a flood of requests costs
 * herdr at most one ping per session a second. The failure names herdr's socket, which only a
 * paired device or the admin is told.
 */
export const READY_TTL_MS = 1000
const GENERIC = 'no herdr session answers'

export interface Readiness {
  ready: string[]
  /** Why none is ready, in one line; names the socket. */
  why: string
}

export function readinessProbe(ctx: PluginContext, ttlMs = READY_TTL_MS): () => Promise<Readiness> {
  const probe = async (): Promise<Readiness> => {
    const sessions = ctx.herdr.sessions()
    const pings = await Promise.allSettled(sessions.map((s) => ctx.herdr.call<{ protocol: number }>(s, 'ping', {}, { timeoutMs: 2000 })))
    const failed = pings.find((p): p is PromiseRejectedResult => p.status === 'rejected')
    return {
      ready: sessions.filter((_, i) => pings[i].status === 'fulfilled'),
      why: failed ? String((failed.reason as Error)?.message ?? failed.reason).split('\n')[0] : 'no herdr session found',
    }
  }
  let last: Promise<Readiness> | undefined
  // A monotonic clock: the cache is about cost, and a test's frozen wall clock must not pin it.
  let expires = 0
  return () => {
    if (last && performance.now() < expires) return last
    expires = Infinity
    last = probe().finally(() => (expires = performance.now() + ttlMs))
    return last
  }
}

/** The `reason` of a 503: the socket and its error for a paired device or the admin, else generic. */
export function notReadyReason(r: Readiness, request: Request, ctx: PluginContext): string {
  const trusted = authenticate('device', credentialOf(request, new URL(request.url), false), ctx.config.admin_token, ctx.devices) !== null
  return `${trusted ? r.why : GENERIC}; start herdr on this machine (or point the bridge at it) and this clears by itself`
}
