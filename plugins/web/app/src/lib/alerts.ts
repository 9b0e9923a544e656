/**
 * Whether this page can deliver alerts to this browser, and how: the bridge serves a Firebase
 * web config (`GET /push-config`) or a Web Push key (`GET /webpush/key`), each read by push.ts
 * only when `GET /notify/web` says it is there. Only then is an "Enable alerts" control shown: a button
 * that can never deliver anything is worse than none. The one place to extend when the bridge
 * learns another way.
 */
export interface AlertWays<C = unknown> {
  /** The Firebase web config, or null when the bridge serves none. */
  pushConfig: C | null
  /** The Web Push public key, or null when the bridge offers none. */
  webPushKey: string | null
}

export type AlertRoute<C = unknown> = { via: 'fcm'; config: C } | { via: 'webpush'; key: string } | null

/** The way alerts go out (Firebase first, as configured explicitly), or null: offer nothing. */
export function alertRoute<C>(ways: AlertWays<C>): AlertRoute<C> {
  if (ways.pushConfig != null) return { via: 'fcm', config: ways.pushConfig }
  if (ways.webPushKey) return { via: 'webpush', key: ways.webPushKey }
  return null
}

export const alertsDeliverable = (ways: AlertWays): boolean => alertRoute(ways) !== null
