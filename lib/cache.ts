/**
 * The one bounded cache the bridge uses: least recently used entries go first once `max` is
 * passed, and an entry older than `ttlMs` (when given) is a miss. A rejected promise stored as a
 * value is removed, so a failure is never served from the cache.
 */
export interface Cache<K, V> {
  get(key: K): V | undefined
  set(key: K, value: V): V
  delete(key: K): void
  clear(): void
  readonly size: number
}

export function createCache<K, V>(opts: { max: number; ttlMs?: number; now?: () => number }): Cache<K, V> {
  const now = opts.now ?? Date.now
  const map = new Map<K, { at: number; value: V }>()
  return {
    get(key) {
      const hit = map.get(key)
      if (!hit) return undefined
      if (opts.ttlMs !== undefined && now() - hit.at >= opts.ttlMs) {
        map.delete(key)
        return undefined
      }
      // Re-inserting keeps Map order as recency order.
      map.delete(key)
      map.set(key, hit)
      return hit.value
    },
    set(key, value) {
      map.delete(key)
      map.set(key, { at: now(), value })
      while (map.size > opts.max) map.delete(map.keys().next().value as K)
      if (value instanceof Promise) value.catch(() => map.get(key)?.value === value && map.delete(key))
      return value
    },
    delete: (key) => void map.delete(key),
    clear: () => map.clear(),
    get size() {
      return map.size
    },
  }
}
