import type { ConsolaInstance } from 'consola'

/**
 * Logs a target's failure once, not once per alert: the first failure is a warning, repeats are
 * debug lines until the target works again, which is logged once too.
 */
export interface FailureLog {
  /** `target` identifies it (may hold secrets, never logged); `label` is what the log shows. */
  failed(target: string, message: string, label?: string): void
  ok(target: string, label?: string): void
}

export function createFailureLog(log: ConsolaInstance, channel: string): FailureLog {
  const failing = new Set<string>()
  return {
    failed(target, message, label = target) {
      if (failing.has(target)) return void log.debug(`${channel}: ${label}: ${message}`)
      failing.add(target)
      log.warn(`${channel}: ${label}: ${message} (further failures of this target are not logged until it works again)`)
    },
    ok(target, label = target) {
      if (failing.delete(target)) log.info(`${channel}: ${label} works again`)
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
