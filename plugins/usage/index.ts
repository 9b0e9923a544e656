import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, defineAgentKind, type PluginContext } from '../../core/plugin.ts'
import { createClaudeUsage, DEFAULT_USAGE_URL, type UsageReader } from './claude.ts'

/**
 * Quota usage of agent kinds that have one (spec 1 §4.4).
 *   GET /usage   {fetched_at, claude: {available, reason?, subscription_type, five_hour, seven_day, …}}
 *
 * Options: `[usage, { url }]`, or env BRIDGE_USAGE_URL, replace the provider endpoint (tests use
 * a local stand-in). The credential is read from ~/.claude/.credentials.json and never returned.
 */

export interface UsageOptions {
  url?: string
}

/** The claude reader of each bridge (keyed by its bus): the kind capability gets only the context. */
const readers = new WeakMap<PluginContext['bus'], UsageReader>()

const usageWindow = v.looseObject({ utilization: v.number(), resets_at: v.optional(v.string()) })
/** One kind's quota: every window the provider returns, keyed as it names them. */
const kindUsage = v.looseObject({
  available: v.boolean(),
  reason: v.optional(v.string()),
  subscription_type: v.optional(v.string()),
  five_hour: v.optional(usageWindow),
  seven_day: v.optional(usageWindow),
})

function reader(ctx: PluginContext): UsageReader {
  let r = readers.get(ctx.bus)
  if (!r) readers.set(ctx.bus, (r = createClaudeUsage({ home: ctx.home, url: ctx.env.BRIDGE_USAGE_URL || DEFAULT_USAGE_URL, now: ctx.now })))
  return r
}

export default defineBridgePlugin({
  name: 'usage',
  setup(ctx, options: UsageOptions | undefined) {
    if (options?.url) readers.set(ctx.bus, createClaudeUsage({ home: ctx.home, url: options.url, now: ctx.now }))
  },
  agentKinds: [defineAgentKind({ kind: 'claude', usage: (ctx: PluginContext) => reader(ctx).read() })],
  routes: [
    defineBridgeRoute({
      method: 'GET',
      path: '/usage',
      auth: 'device',
      describe: 'Quota usage per agent kind, read live from the host credential (cached 1 min)',
      // One key per kind with a usage reader (claude), beside fetched_at.
      response: v.objectWithRest({ fetched_at: v.string() }, kindUsage),
      async handler({ ctx }) {
        const out: Record<string, unknown> = { fetched_at: new Date(ctx.now()).toISOString() }
        for (const k of ctx.agentKinds.list()) {
          if (typeof k.usage !== 'function') continue
          try {
            out[k.kind] = await k.usage(ctx)
          } catch (err) {
            out[k.kind] = { available: false, reason: `usage read failed: ${(err as Error).message}` }
          }
        }
        return out
      },
    }),
  ],
})
