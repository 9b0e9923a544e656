import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'

/**
 * Quota usage of agent kinds that have one.
 *   GET /usage   {fetched_at, <kind>: {available, reason?, subscription_type?, <window>…}}
 *
 * One key per kind whose plugin contributes a `usage` capability; a reader that throws answers
 * `{available: false, reason}` for its kind only.
 */

const usageWindow = v.looseObject({ utilization: v.number(), resets_at: v.optional(v.string()) })
/** One kind's quota: every window the provider returns, keyed as it names them. */
const kindUsage = v.looseObject({
  available: v.boolean(),
  reason: v.optional(v.string()),
  subscription_type: v.optional(v.string()),
  five_hour: v.optional(usageWindow),
  seven_day: v.optional(usageWindow),
})

export default defineBridgePlugin({
  name: 'usage',
  routes: [
    defineBridgeRoute({
      method: 'GET',
      path: '/usage',
      auth: 'device',
      describe: 'Quota usage per agent kind, read live from the host credential (cached 1 min)',
      // One key per kind with a usage reader, beside fetched_at.
      response: v.objectWithRest({ fetched_at: v.string() }, kindUsage),
      async handler({ ctx }) {
        const out: Record<string, unknown> = { fetched_at: new Date(ctx.now()).toISOString() }
        for (const k of ctx.agentKinds.list()) {
          if (typeof k.usage !== 'function') continue
          try {
            out[k.kind] = await k.usage({ ctx })
          } catch (err) {
            out[k.kind] = { available: false, reason: `usage read failed: ${(err as Error).message}` }
          }
        }
        return out
      },
    }),
  ],
})
