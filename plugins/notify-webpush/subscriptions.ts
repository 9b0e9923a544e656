import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../../storage/index.ts'

/**
 * Browser push subscriptions, each owned by one paired device, in `webpush-subscriptions.json`.
 * One endpoint is one browser: subscribing it again (from any device) replaces the old entry.
 */
export interface WebPushSubscription {
  device: string
  endpoint: string
  keys: { p256dh: string; auth: string }
  expirationTime: number | null
  created_at: number
}

export interface SubscriptionStore {
  list(): WebPushSubscription[]
  /** Adds or replaces by endpoint; a device past `max` loses its oldest. Returns how many were dropped. */
  add(sub: WebPushSubscription, max: number): Promise<number>
  removeEndpoint(endpoint: string, device?: string): Promise<boolean>
  removeDevice(device: string): Promise<number>
}

const KEY = 'webpush-subscriptions.json'

export async function createSubscriptionStore(storage: Storage): Promise<SubscriptionStore> {
  const raw = (await readJson<unknown>(storage, KEY, 'web push subscriptions')) ?? []
  let subs: WebPushSubscription[] = (Array.isArray(raw) ? raw : []).filter((s: unknown): s is WebPushSubscription => {
    if (!s || typeof s !== 'object') return false
    const o = s as Record<string, unknown>
    const keys = o.keys && typeof o.keys === 'object' ? (o.keys as Record<string, unknown>) : {}
    return typeof o.device === 'string' && typeof o.endpoint === 'string' && typeof keys.p256dh === 'string' && typeof keys.auth === 'string'
  })
  let writing: Promise<unknown> = Promise.resolve()
  /**
   * Each change is computed from the list the previous change left, inside one serialized chain,
   * so concurrent adds and removals (two 410s in one fan-out, a subscribe meanwhile) all land.
   * The list in memory changes only once the new one is on disk (like the device registry).
   */
  const update = <T>(change: (current: WebPushSubscription[]) => { next?: WebPushSubscription[]; result: T }): Promise<T> => {
    const p = writing.then(async () => {
      const { next, result } = change(subs)
      if (next) {
        await writeJson(storage, KEY, next)
        subs = next
      }
      return result
    })
    writing = p.catch(() => {})
    return p
  }
  return {
    list: () => subs.map((s) => ({ ...s })),
    add: (sub, max) =>
      update((current) => {
        const others = current.filter((s) => s.endpoint !== sub.endpoint)
        const mine = others.filter((s) => s.device === sub.device).sort((a, b) => a.created_at - b.created_at)
        const drop = new Set(mine.slice(0, Math.max(0, mine.length - (max - 1))).map((s) => s.endpoint))
        return { next: [...others.filter((s) => !drop.has(s.endpoint)), sub], result: drop.size }
      }),
    removeEndpoint: (endpoint, device) =>
      update((current) => {
        const next = current.filter((s) => !(s.endpoint === endpoint && (device === undefined || s.device === device)))
        return next.length === current.length ? { result: false } : { next, result: true }
      }),
    removeDevice: (device) =>
      update((current) => {
        const next = current.filter((s) => s.device !== device)
        const n = current.length - next.length
        return n ? { next, result: n } : { result: 0 }
      }),
  }
}
