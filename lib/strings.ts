/**
 * Client strings on their way to a process argument, a file name or a log line. NUL cannot be
 * passed to a process at all, and other control characters forge log lines or terminal output,
 * so they are refused at the door (400) wherever a string can reach one of those.
 */
import * as v from 'valibot'

/** C0 controls and DEL. */
const CONTROL = /[\u0000-\u001f\u007f]/

export function hasControl(s: string): boolean {
  return CONTROL.test(s)
}

/** A valibot check for string fields that reach argv, file names or logs. */
export const noControl = (field: string) => v.check((s: string) => !CONTROL.test(s), `${field}: control characters are not allowed`)

/**
 * The first declared parameter (after validation) holding a control character, as a one-line
 * refusal; null when none. Undeclared parameters never reach a handler, so they are not judged.
 */
export function controlInParams(params: Record<string, unknown>): string | null {
  for (const [k, val] of Object.entries(params)) if (typeof val === 'string' && CONTROL.test(val)) return `${logSafe(k, 40)}: control characters are not allowed`
  return null
}

/** A client string as it may appear in a log line: escaped like JSON, cut at `max`. */
export function logSafe(s: string, max = 200): string {
  const e = JSON.stringify(s).slice(1, -1)
  return e.length > max ? e.slice(0, max - 1) + '…' : e
}

/** The first non-empty string of the candidates: a route's audit hook names its target with it. */
export function firstId(...candidates: unknown[]): string | undefined {
  return candidates.find((v): v is string => typeof v === 'string' && v !== '')
}
