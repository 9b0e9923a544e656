import { randomBytes } from 'node:crypto'
import type { Role } from '../../core/plugin.ts'

export const CODE_TTL_MS = 5 * 60_000

/** One-time pairing codes, held in memory only: a restart invalidates them all. */
export function createCodeBook(now: () => number) {
  // Each code carries the role the device paired with it gets.
  const codes = new Map<string, { exp: number; role: Role }>()
  const sweep = () => {
    for (const [c, { exp }] of codes) if (exp <= now()) codes.delete(c)
  }
  /** Consumes the code if valid: its role once, null for unknown, expired or used. */
  const claim = (code: string): Role | null => {
    const key = code.trim().toLowerCase()
    const held = codes.get(key)
    if (held === undefined) return null
    codes.delete(key)
    return held.exp > now() ? held.role : null
  }
  return {
    issue(role: Role = 'default'): { code: string; expires_at: number } {
      sweep()
      const code = randomBytes(4).toString('hex')
      const expires_at = now() + CODE_TTL_MS
      codes.set(code, { exp: expires_at, role })
      return { code, expires_at }
    },
    claim,
    /** Consumes the code if valid: true once, false for unknown, expired or used. */
    redeem: (code: string): boolean => claim(code) !== null,
  }
}

/** Addresses tracked at most; past it the ones with the fewest recent failures are forgotten first. */
export const MAX_TRACKED = 10_000
/** Failed attempts a minute from all addresses together (a code is one of 2^32). */
export const GLOBAL_MAX = 100

/**
 * Failed attempts per client address in a sliding window, so codes cannot be guessed, and a cap
 * on failures from everyone together, so many addresses cannot guess either. Memory is bounded:
 * past `maxTracked` addresses the least active are dropped, never the worst offenders, so a
 * flood of fresh addresses cannot wipe an attacker's record.
 */
export function createFailureLimiter(now: () => number, max = 10, windowMs = 60_000, opts: { maxTracked?: number; globalMax?: number } = {}) {
  const maxTracked = opts.maxTracked ?? MAX_TRACKED
  const globalMax = opts.globalMax ?? GLOBAL_MAX
  const fails = new Map<string, number[]>()
  let everyone: number[] = []
  const fresh = (list: number[]) => list.filter((t) => t > now() - windowMs)
  const wait = (oldest: number) => Math.max(1, Math.ceil((oldest + windowMs - now()) / 1000))
  const evict = () => {
    for (const [k, list] of fails) if (!fresh(list).length) fails.delete(k)
    if (fails.size <= maxTracked) return
    // Drop a tenth at once, fewest recent failures first, so eviction stays rare.
    const ranked = [...fails].map(([k, list]) => [k, fresh(list).length] as const).sort((a, b) => a[1] - b[1])
    for (const [k] of ranked.slice(0, fails.size - Math.floor(maxTracked * 0.9))) fails.delete(k)
  }
  return {
    /** Seconds to wait and why, or null when the address may try. */
    check(key: string): { wait: number; global: boolean } | null {
      everyone = fresh(everyone)
      const r = fresh(fails.get(key) ?? [])
      if (r.length) fails.set(key, r)
      else fails.delete(key)
      if (r.length >= max) return { wait: wait(r[r.length - max]), global: false }
      if (everyone.length >= globalMax) return { wait: wait(everyone[everyone.length - globalMax]), global: true }
      return null
    },
    /** Seconds to wait, or 0 when the address may try. */
    retryAfter(key: string): number {
      return this.check(key)?.wait ?? 0
    },
    fail(key: string) {
      const t = now()
      // Only the last `max` failures of an address matter; the window is the same for all.
      const r = [...fresh(fails.get(key) ?? []), t].slice(-max)
      fails.set(key, r)
      everyone = [...fresh(everyone), t].slice(-globalMax)
      if (fails.size > maxTracked) evict()
    },
    tracked: () => fails.size,
  }
}
