import type { Bus } from '../../core/bus.ts'

/** Whether a channel has what it needs to send, and where it sends or what it lacks, in one line. */
export interface ChannelStatus {
  configured: boolean
  detail: string
}

/**
 * The notifier channels running in one bridge, each with how it describes itself. Each notifier
 * plugin adds itself at setup; composition waits for one `notify_delivered` per channel before it
 * publishes `push_sent`, and `/admin/status` asks each for its status, so no plugin has to read
 * another's files. Keyed by the bridge's bus (one per bridge), so plugin order in
 * bridge.config.ts does not matter and several bridges in one process (tests) stay apart.
 */
const registries = new WeakMap<Bus, Map<string, () => ChannelStatus>>()

function registry(bus: Bus): Map<string, () => ChannelStatus> {
  let map = registries.get(bus)
  if (!map) registries.set(bus, (map = new Map()))
  return map
}

/** The names of the channels running in this bridge. */
export const notifyChannels = (bus: Bus): ReadonlySet<string> => new Set(registry(bus).keys())

export function addChannel(bus: Bus, channel: string, status: () => ChannelStatus): void {
  registry(bus).set(channel, status)
}

export function removeChannel(bus: Bus, channel: string): void {
  registry(bus).delete(channel)
}

/** A running channel's own status; undefined when its plugin is not loaded. */
export const channelStatus = (bus: Bus, channel: string): ChannelStatus | undefined => registry(bus).get(channel)?.()
