import type { Bus } from '../../core/bus.ts'

/**
 * The notifier channels running in one bridge. Each notifier plugin adds its name at setup;
 * composition waits for one `notify_delivered` per channel before it publishes `push_sent`.
 * Keyed by the bridge's bus (one per bridge), so plugin order in bridge.config.ts does not
 * matter and several bridges in one process (tests) stay apart.
 */
const registries = new WeakMap<Bus, Set<string>>()

export function notifyChannels(bus: Bus): Set<string> {
  let set = registries.get(bus)
  if (!set) registries.set(bus, (set = new Set()))
  return set
}
