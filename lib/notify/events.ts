import type { AlertOption } from './alert-data.ts'

/**
 * What alert composition (plugins/push) hands the notification channels (plugins/notify-*,
 * through the `notifyChannels` service, core/notify/channels.ts): one alert per blocked/done
 * transition and one dismissal when the pane leaves that state or closes. Each channel answers
 * each with a Delivery; composition sums the alerts' into `push_sent`.
 */

/** Published by the pairing plugin when a device is revoked: its subscriptions and mutes go. */
export const DEVICE_REVOKED_EVENT = 'device_revoked'

export type AlertStatus = 'blocked' | 'done'

export interface AlertEvent {
  /** Names this alert in logs. */
  id: string
  /** `<server_id>/<pane>`: one notification per pane on every device. */
  tag: string
  status: AlertStatus
  title: string
  body: string
  /** Client-facing pane id. */
  pane: string
  /** The agent kind herdr reports (`claude`, `codex`, …); empty when unknown. */
  agent: string
  agent_title: string
  server_id: string
  server_name: string
  /** The agent's state_change_seq at the transition, for `/approve`; absent when unread. */
  seq?: number
  /** Opens the pane in the web app: absolute when a public URL is known, else `/#/open/…`. */
  url: string
  /** Label of the card's confirm option, when the blocked card has one (web push offers Approve). */
  approve?: string
  /** The blocked card's question, its options and their category, when the card showed them. */
  question?: string
  options?: AlertOption[]
  category?: string
  /** Devices that muted this pane: the per-device channels skip them. */
  muted: string[]
  /**
   * Per channel, the devices that turned it off for their alerts (`POST /notify/channels`): the
   * channel registry adds them to that per-device channel's `muted`.
   */
  off?: Record<string, string[]>
  /** Milliseconds since the epoch. */
  ts: number
  /** A test alert (`POST /testpush`, `bridge notify test`). */
  test?: boolean
  /** Only these channels deliver it (`bridge notify test --channel`); all when absent. */
  channels?: string[]
}

export interface DismissEvent {
  id: string
  tag: string
  server_id: string
  pane: string
  agent: string
  /** The title of the alert being cleared (empty if none was composed). */
  title: string
  ts: number
}

export interface Delivery {
  /** Targets (devices, subscriptions, topics, URLs) the message reached. */
  sent: number
  /** Targets it was meant for. */
  total: number
  /** Whether the channel is set up to send at all (credentials, keys, a URL). */
  enabled: boolean
  /** Why nothing (or not everything) went out, in one line. */
  note?: string
  /** Per target, what its service answered (Web Push subscriptions, webhooks): `bridge notify test` prints them. */
  targets?: DeliveryTarget[]
}

export interface DeliveryTarget {
  /** How logs name it: never a push endpoint or a webhook's secret URL. */
  target: string
  /** The device it belongs to, for a per-device target (a device is shown only its own). */
  device?: string
  ok: boolean
  /** `HTTP 201`, `HTTP 410: … (subscription removed)`, or the network error. */
  answer: string
}
