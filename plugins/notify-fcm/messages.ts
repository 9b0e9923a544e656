import type { Message } from 'firebase-admin/messaging'

/**
 * The FCM v1 messages of one alert or dismissal for one device token: the wire format the
 * reference mobile client reads, byte for byte.
 */

export interface AndroidChannels {
  blocked: string
  done: string
}

/** The channel ids the reference mobile client creates; Android drops a notification for any other. */
export const DEFAULT_ANDROID_CHANNELS: AndroidChannels = { blocked: 'gothalo_blocked', done: 'gothalo_done' }

/** What an FCM alert is built from: the composed alert and its data keys (without `render`). */
export interface FcmAlert {
  tag: string
  status: 'blocked' | 'done'
  title: string
  body: string
  data: Record<string, string>
}

const WEBPUSH = { headers: { Urgency: 'high', TTL: '3600' } }

/**
 * The two messages of one alert for one device: `render: 'os'` with a notification block the
 * OS draws without the app, then `render: 'app'` data-only so the app redraws the same tag
 * with action buttons.
 */
export function alertMessages(token: string, alert: FcmAlert, channels: AndroidChannels): [Message, Message] {
  const channelId = alert.status === 'blocked' ? channels.blocked : channels.done
  const os: Message = {
    token,
    data: { ...alert.data, render: 'os' },
    notification: { title: alert.title, body: alert.body },
    android: {
      priority: 'high',
      collapseKey: alert.tag,
      notification: { tag: alert.tag, channelId, priority: 'high', defaultSound: true },
    },
    webpush: WEBPUSH,
  }
  const app: Message = {
    token,
    data: { ...alert.data, render: 'app' },
    android: { priority: 'high', collapseKey: alert.tag },
    webpush: WEBPUSH,
  }
  return [os, app]
}

/** Data-only: the client cancels the tray notification tagged `<server_id>/<pane>`. */
export function dismissMessage(token: string, serverId: string, pane: string): Message {
  return {
    token,
    data: { type: 'dismiss', agent: pane, server_id: serverId },
    android: { priority: 'high', collapseKey: `${serverId}/${pane}` },
    webpush: WEBPUSH,
  }
}
