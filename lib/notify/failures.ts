import type { ConsolaInstance } from 'consola'

/**
 * Logs a target's failure once, not once per alert: the first failure is a warning, repeats are
 * debug lines until the target works again, which is logged once too.
 */
export interface FailureLog {
  failed(target: string, message: string): void
  ok(target: string): void
}

export function createFailureLog(log: ConsolaInstance, channel: string): FailureLog {
  const failing = new Set<string>()
  return {
    failed(target, message) {
      if (failing.has(target)) return void log.debug(`${channel}: ${target}: ${message}`)
      failing.add(target)
      log.warn(`${channel}: ${target}: ${message} (further failures of this target are not logged until it works again)`)
    },
    ok(target) {
      if (failing.delete(target)) log.info(`${channel}: ${target} works again`)
    },
  }
}

/** A URL for logs: scheme, host and the first path segment's first characters, never a secret path or query. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname.length > 1 ? '/…' : '/'}`
  } catch {
    return '<bad url>'
  }
}
