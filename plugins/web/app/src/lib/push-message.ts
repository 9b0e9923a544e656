/**
 * What the service worker does with one web push (spec 1 §6.1/6.2, client-compat §4). Pure, so
 * it is tested without a browser; firebase-messaging-sw.ts only carries the decision out.
 *
 * FCM delivers `{data: {...}, notification?: {...}, from, fcmMessageId, ...}` as the push's JSON
 * body; only `data` is read (every value a string).
 */

export type PushAction =
  | { do: 'ignore'; why: string }
  | { do: 'show'; title: string; options: { body: string; tag: string; data: { url: string }; requireInteraction: boolean; renotify: boolean } }
  | { do: 'close'; tag: string }

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
 * `appVisible`: a window of this app is visible. Alerts are then left to the page's in-page
 * alert (the reference client draws nothing in the foreground); a dismiss always acts.
 */
export function pushAction(body: unknown, appVisible: boolean): PushAction {
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
  const title = str(d.title).trim() || DEFAULT_TITLE
  const body_ = str(d.body).trim() || str(d.question).trim()
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
