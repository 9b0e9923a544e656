/**
 * What the service worker does with one push (an alert or a dismissal, read the way the mobile
 * app reads it), from FCM or from the bridge's own Web Push channel. Pure, so it is tested
 * without a browser; firebase-messaging-sw.ts only carries the decision out.
 *
 * FCM delivers `{data: {...}, notification?: {...}, from, fcmMessageId, ...}` as the push's JSON
 * body; only `data` is read (every value a string).
 */
// Alerts drop the agents' TUI glyphs: a notification font draws them as empty boxes.
import { plainText } from './triage.ts'

/** What an Approve action posts: `/approve {agent: pane, seq}` on the bridge with this server id. */
export interface ApproveData {
  server_id: string
  pane: string
  seq: number
}

export interface ShowOptions {
  body: string
  tag: string
  data: { url: string; approve?: ApproveData }
  requireInteraction: boolean
  renotify: boolean
  actions?: Array<{ action: string; title: string }>
}

export type PushAction = { do: 'ignore'; why: string } | { do: 'show'; title: string; options: ShowOptions } | { do: 'close'; tag: string }

/** The notification action id of Approve. */
export const APPROVE_ACTION = 'approve'

export const DEFAULT_TITLE = 'Herdr agent'

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** The notification tag shared with the bridge's Android tag and the page's own alerts. */
export const pushTag = (serverId: string, agent: string) => `${serverId}/${agent}`

/** Opens the agent view through `#/open/…`: the worker knows the server id, not the page's bridge key. */
export const openHref = (serverId: string, agent: string) => `#/open/${encodeURIComponent(serverId || '-')}/${encodeURIComponent(agent)}`

/** The push body's `data` map, whether the push carried the FCM envelope or the bare map. */
export function pushData(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object') return {}
  const b = body as Record<string, unknown>
  const data = b.data && typeof b.data === 'object' && !Array.isArray(b.data) ? (b.data as Record<string, unknown>) : b
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(data)) if (typeof v === 'string') out[k] = v
  return out
}

/**
 * A standard Web Push message from the bridge's webpush channel (no FCM envelope):
 * `{type: 'alert', tag, title, body, status, pane, agent, server_id, url, seq?, approve?}` or
 * `{type: 'dismiss', tag, server_id, pane}`.
 */
export function isWebPushMessage(body: unknown): body is Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false
  const b = body as Record<string, unknown>
  return (b.type === 'alert' || b.type === 'dismiss') && typeof b.pane === 'string' && typeof b.tag === 'string' && !('data' in b)
}

/** The `#/…` part of the bridge's pane URL: the notification opens it in this worker's own origin. */
const hashOf = (url: string, serverId: string, pane: string) => {
  const i = url.indexOf('#/')
  return i >= 0 ? url.slice(i) : openHref(serverId, pane)
}

function webPushAction(b: Record<string, unknown>, appVisible: boolean): PushAction {
  const pane = str(b.pane)
  const serverId = str(b.server_id)
  const tag = str(b.tag) || pushTag(serverId, pane)
  if (!pane) return { do: 'ignore', why: 'message without pane' }
  if (b.type === 'dismiss') return { do: 'close', tag }
  if (appVisible) return { do: 'ignore', why: 'the app is open' }
  const seq = typeof b.seq === 'number' && Number.isInteger(b.seq) ? b.seq : undefined
  const approve = b.status === 'blocked' && seq !== undefined && str(b.approve).trim() ? str(b.approve).trim() : ''
  return {
    do: 'show',
    title: plainText(str(b.title)) || DEFAULT_TITLE,
    options: {
      body: plainText(str(b.body)),
      tag,
      data: { url: hashOf(str(b.url), serverId, pane), ...(approve ? { approve: { server_id: serverId, pane, seq: seq! } } : {}) },
      requireInteraction: b.status === 'blocked',
      renotify: true,
      ...(approve ? { actions: [{ action: APPROVE_ACTION, title: approve }] } : {}),
    },
  }
}

/** The bridge a notification action goes to: the paired one with this server id, never another. */
export function bridgeForServer<B extends { server_id: string }>(bridges: B[], serverId: string): B | undefined {
  return serverId ? bridges.find((b) => b.server_id === serverId) : undefined
}

/** What the worker says after an Approve action, from `/approve`'s answer. */
export function approveOutcome(r: { applied?: boolean; reason?: string } | null, error?: string): string {
  if (error) return `Not approved: ${error}`
  if (r?.applied) return 'Approved'
  return `Not approved: ${r?.reason || 'the bridge refused'}`
}

/**
 * `appVisible`: a window of this app is visible. Alerts are then left to the page's in-page
 * alert (the reference client draws nothing in the foreground); a dismiss always acts.
 */
export function pushAction(body: unknown, appVisible: boolean): PushAction {
  if (isWebPushMessage(body)) return webPushAction(body, appVisible)
  const d = pushData(body)
  const agent = str(d.agent)
  const serverId = str(d.server_id)
  if (d.type === 'dismiss') {
    if (!agent) return { do: 'ignore', why: 'dismiss without agent' }
    return { do: 'close', tag: pushTag(serverId, agent) }
  }
  // Each alert comes twice; the OS-drawn copy exists for clients that cannot draw their own.
  if (d.render === 'os') return { do: 'ignore', why: "render 'os' duplicate" }
  if (!agent) return { do: 'ignore', why: 'alert without agent' }
  if (appVisible) return { do: 'ignore', why: 'the app is open' }
  const title = plainText(str(d.title)) || DEFAULT_TITLE
  const body_ = plainText(str(d.body)) || plainText(str(d.question))
  return {
    do: 'show',
    title,
    options: {
      body: body_,
      tag: pushTag(serverId, agent),
      data: { url: openHref(serverId, agent) },
      requireInteraction: d.status === 'blocked',
      renotify: true,
    },
  }
}
