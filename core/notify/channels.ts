import type { AlertEvent, Delivery, DismissEvent } from '../../lib/notify/events.ts'

/** Whether a channel has what it needs to send, and where it sends or what it lacks, in one line. */
export interface ChannelStatus {
  configured: boolean
  detail: string
}

/** One notification channel as its notifier plugin registers it (core/notify/notifier.ts). */
export interface Channel {
  /** The channel's name in `push_sent`, logs, `/admin/notify/test` and `bridge notify test --channel`. */
  name: string
  /** The plugin that runs it. */
  plugin: string
  /** Configured or not, and where it sends or what it lacks (`/admin/status`, `bridge doctor`). */
  status(): ChannelStatus
  /**
   * It delivers to devices (their browser subscriptions, their push tokens), so each device may
   * turn it off for its own alerts (`POST /notify/channels`); a bridge-wide channel (a topic, a
   * webhook) is the same for every device.
   */
  perDevice?: boolean
  alert(ev: AlertEvent): Promise<Delivery>
  dismiss(ev: DismissEvent): Promise<Delivery>
}

/** The running channels and their status, as `/admin/status` lists them. */
export interface ChannelInfo extends ChannelStatus {
  channel: string
  plugin: string
}

/**
 * The notification channels running in one bridge (the `notifyChannels` service, provided by the
 * core): each notifier plugin adds its channel at setup and removes it at shutdown, and every list
 * of channels (alerts, `/admin/notify/test`, `/admin/status`, the CLI, the web app) is read here.
 */
export interface ChannelRegistry {
  /** Names of the running channels, in the order their plugins were set up. */
  names(): string[]
  has(name: string): boolean
  /** A running channel's own status; undefined when no plugin runs it. */
  status(name: string): ChannelStatus | undefined
  list(): ChannelInfo[]
  /** Whether a running channel delivers per device (a device may turn it off for itself). */
  perDevice(name: string): boolean
  /** The channels worth naming: the shipped ones, loaded or not, then every other running one. */
  known(): string[]
  /** Registers a channel; a name taken by another plugin is an error naming both. Returns the removal. */
  add(channel: Channel): () => void
  /**
   * Hands an alert to every running channel, or to those the alert names (`channels`), all at
   * once: one result per channel, a slow or failing channel never holding another back. A channel
   * that throws answers `{sent: 0, enabled: true, note: <the error>}`. A per-device channel gets
   * the devices that turned it off (`ev.off`) among those it skips (`muted`).
   */
  alert(ev: AlertEvent): Promise<Record<string, Delivery>>
  /** Takes a notification back on every running channel, the same way. */
  dismiss(ev: DismissEvent): Promise<Record<string, Delivery>>
}

/**
 * The channels this repository ships, each in its own plugin (plugins/notify-<name>). Named in
 * listings when not loaded, with the line that adds it; every other list is the running registry.
 */
export const SHIPPED_CHANNELS: readonly string[] = ['fcm', 'webpush', 'ntfy', 'webhook']

/** What a listing says of a shipped channel whose plugin is not in the plugin list. */
export const notLoaded = (channel: string) => `not loaded: add the notify-${channel} plugin to bridge.config.ts`

/** Whether a channel should handle this alert (a test may name one channel). */
export const forChannel = (ev: { channels?: string[] }, channel: string) => !ev.channels || ev.channels.includes(channel)

/**
 * How long one delivery may take before its result is reported as still sending: a stalled
 * channel delays only the `push_sent` count, never another channel's delivery.
 */
const DELIVERY_WAIT_MS = 30_000

/** Calls a channel now (so a pane's alert and dismissal queue in the order they were handed over); a throw becomes a rejection. */
function call(send: (c: Channel) => Promise<Delivery>, c: Channel): Promise<Delivery> {
  try {
    return send(c)
  } catch (err) {
    return Promise.reject(err)
  }
}

export function createChannelRegistry(opts: { waitMs?: number } = {}): ChannelRegistry {
  const waitMs = opts.waitMs ?? DELIVERY_WAIT_MS
  const channels = new Map<string, Channel>()
  const statusOf = (c: Channel): ChannelStatus => {
    try {
      return c.status()
    } catch (err) {
      return { configured: false, detail: `status failed: ${(err as Error)?.message ?? err}` }
    }
  }
  const settle = async (targets: Channel[], send: (c: Channel) => Promise<Delivery>): Promise<Record<string, Delivery>> => {
    const late: Delivery = { sent: 0, total: 0, enabled: true, note: `still sending after ${waitMs / 1000} s; see the bridge log` }
    const deadline = (p: Promise<Delivery>) => {
      let timer: NodeJS.Timeout | undefined
      const wait = new Promise<Delivery>((resolve) => (timer = setTimeout(() => resolve(late), waitMs)).unref?.())
      return Promise.race([p, wait]).finally(() => clearTimeout(timer))
    }
    const settled = await Promise.allSettled(targets.map((c) => deadline(call(send, c))))
    const out: Record<string, Delivery> = {}
    settled.forEach((r, i) => {
      out[targets[i].name] = r.status === 'fulfilled' ? r.value : { sent: 0, total: 0, enabled: true, note: String((r.reason as Error)?.message ?? r.reason) }
    })
    return out
  }
  return {
    names: () => [...channels.keys()],
    has: (name) => channels.has(name),
    status: (name) => {
      const c = channels.get(name)
      return c && statusOf(c)
    },
    list: () => [...channels.values()].map((c) => ({ channel: c.name, plugin: c.plugin, ...statusOf(c) })),
    perDevice: (name) => channels.get(name)?.perDevice === true,
    known: () => [...new Set([...SHIPPED_CHANNELS, ...channels.keys()])],
    add(channel) {
      const prev = channels.get(channel.name)
      if (prev) throw new Error(`notification channel ${channel.name} is run by both plugin ${prev.plugin} and plugin ${channel.plugin}`)
      channels.set(channel.name, channel)
      return () => {
        if (channels.get(channel.name) === channel) channels.delete(channel.name)
      }
    },
    alert: (ev) =>
      settle(
        [...channels.values()].filter((c) => forChannel(ev, c.name)),
        (c) => c.alert(c.perDevice && ev.off?.[c.name]?.length ? { ...ev, muted: [...new Set([...ev.muted, ...ev.off[c.name]])] } : ev),
      ),
    dismiss: (ev) => settle([...channels.values()], (c) => c.dismiss(ev)),
  }
}
