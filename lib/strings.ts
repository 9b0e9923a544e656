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

/**
 * What a terminal would act on rather than print: C0 controls and DEL, C1 controls (U+0080–U+009F;
 * U+009B is a one-byte CSI on some terminals) and the bidi controls that reorder what follows them
 * (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069).
 */
const TERMINAL_ACTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
const BIDI_OR_C1 = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

const escapeOne = (c: string) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/**
 * Text from outside (a client, a push service, a dev server) as it may reach a terminal: a log
 * line, a CLI table, a notification's text. Every character in TERMINAL_ACTIVE and the backslash
 * are escaped JSON-style, so the output prints as one line, in order, and says what was there;
 * cut at `max` characters.
 */
export function termSafe(s: string, max = Infinity): string {
  const e = s.replace(/\\/g, '\\\\').replace(TERMINAL_ACTIVE, escapeOne)
  return e.length > max ? e.slice(0, max - 1) + '…' : e
}

/** A client string as it may appear in a log line: `termSafe`, cut at `max` (200). */
export function logSafe(s: string, max = 200): string {
  return termSafe(s, max)
}

/**
 * A valibot check for names a person reads (device names): no control characters, C0 or C1, and
 * no bidi controls, which would make a name print as something else in a list or a log.
 */
export const plainName = (field: string) => v.check((s: string) => !CONTROL.test(s) && !BIDI_OR_C1.test(s), `${field}: control characters are not allowed`)

/** The first non-empty string of the candidates: a route's audit hook names its target with it. */
export function firstId(...candidates: unknown[]): string | undefined {
  return candidates.find((v): v is string => typeof v === 'string' && v !== '')
}
