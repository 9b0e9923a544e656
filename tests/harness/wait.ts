import { vi } from 'vitest'

/**
 * Polls `check` with vi.waitFor until it returns a truthy value, and returns that value. A throw
 * counts as not yet; at the deadline the last throw, or a timeout naming `what`, fails the test.
 */
export function until<T>(check: () => T | Promise<T>, what: string | (() => string), timeoutMs = 20_000, intervalMs = 25): Promise<NonNullable<T>> {
  return vi.waitFor(
    async () => {
      const v = await check()
      if (!v) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`)
      return v as NonNullable<T>
    },
    { timeout: timeoutMs, interval: intervalMs },
  )
}
