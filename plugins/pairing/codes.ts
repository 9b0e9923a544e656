import { randomBytes } from 'node:crypto'
import { createCache } from '../../lib/cache.ts'

export const CODE_TTL_MS = 5 * 60_000

/** One-time pairing codes, held in memory only: a restart invalidates them all. */
export function createCodeBook(now: () => number) {
  const codes = new Map<string, number>()
  const sweep = () => {
    for (const [c, exp] of codes) if (exp <= now()) codes.delete(c)
  }
  return {
    issue(): { code: string; expires_at: number } {
      sweep()
      const code = randomBytes(4).toString('hex')
      const expires_at = now() + CODE_TTL_MS
      codes.set(code, expires_at)
      return { code, expires_at }
    },
    /** Consumes the code if valid: true once, false for unknown, expired or used. */
    redeem(code: string): boolean {
      const key = code.trim().toLowerCase()
      const exp = codes.get(key)
      if (exp === undefined) return false
      codes.delete(key)
      return exp > now()
    },
  }
}

/** Failed attempts per client address in a sliding window, so codes cannot be guessed. */
export function createFailureLimiter(now: () => number, max = 10, windowMs = 60_000) {
  const fails = createCache<string, number[]>({ max: 10_000 })
  const recent = (key: string) => (fails.get(key) ?? []).filter((t) => t > now() - windowMs)
  return {
    /** Seconds to wait, or 0 when the address may try. */
    retryAfter(key: string): number {
      const r = recent(key)
      fails.set(key, r)
      if (r.length < max) return 0
      return Math.max(1, Math.ceil((r[0] + windowMs - now()) / 1000))
    },
    fail(key: string) {
      const r = recent(key)
      r.push(now())
      fails.set(key, r)
    },
  }
}
