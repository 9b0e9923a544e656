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
  let subs: WebPushSubscription[] = (Array.isArray(raw) ? raw : []).filter(
    (s: any): s is WebPushSubscription =>
      s && typeof s.device === 'string' && typeof s.endpoint === 'string' && typeof s.keys?.p256dh === 'string' && typeof s.keys?.auth === 'string',
  )
  let writing: Promise<void> = Promise.resolve()
  /** Serialized, and kept in memory only once on disk (like the device registry). */
  const commit = (next: WebPushSubscription[]) => {
    const p = writing.then(() => writeJson(storage, KEY, next))
    writing = p.catch(() => {})
    return p.then(() => {
      subs = next
    })
  }
  return {
    list: () => subs.map((s) => ({ ...s })),
    async add(sub, max) {
      let next = subs.filter((s) => s.endpoint !== sub.endpoint)
      const mine = next.filter((s) => s.device === sub.device).sort((a, b) => a.created_at - b.created_at)
      const drop = new Set(mine.slice(0, Math.max(0, mine.length - (max - 1))).map((s) => s.endpoint))
      next = [...next.filter((s) => !drop.has(s.endpoint)), sub]
      await commit(next)
      return drop.size
    },
    async removeEndpoint(endpoint, device) {
      const next = subs.filter((s) => !(s.endpoint === endpoint && (device === undefined || s.device === device)))
      if (next.length === subs.length) return false
      await commit(next)
      return true
    },
    async removeDevice(device) {
      const next = subs.filter((s) => s.device !== device)
      const n = subs.length - next.length
      if (n) await commit(next)
      return n
    },
  }
}
