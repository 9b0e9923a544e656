import type { PluginContext } from '../../core/plugin.ts'

/**
 * The notifier channels running in this bridge. Each notifier plugin adds its name at setup;
 * composition waits for one `notify_delivered` per channel before it publishes `push_sent`.
 * Kept in the bridge's shared plugin state, so plugin order in bridge.config.ts does not matter.
 */
const KEY = 'notify.channels'

export function notifyChannels(ctx: Pick<PluginContext, 'services'>): Set<string> {
  let set = ctx.services.get(KEY) as Set<string> | undefined
  if (!set) ctx.services.set(KEY, (set = new Set()))
  return set
}
