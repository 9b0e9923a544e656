/**
 * The key names herdr's `pane.send_keys` accepts, checked on the bridge before anything is sent:
 * herdr itself rejects a bad key with `invalid_key`, but a request that mixes text and keys
 * would already have typed the text by then.
 */

const NAMED = new Set(['enter', 'return', 'esc', 'escape', 'tab', 'backspace', 'bs', 'space', 'left', 'right', 'up', 'down'])
const PUNCTUATION = new Set([
  'minus',
  'plus',
  'comma',
  'period',
  'slash',
  'backslash',
  'quote',
  'double_quote',
  'double-quote',
  'semicolon',
  'colon',
  'percent',
  'ampersand',
  'backtick',
])
const MODIFIERS = new Set(['ctrl', 'control', 'shift', 'alt', 'option', 'meta', 'cmd', 'command', 'super', 'hyper'])
// herdr parses f13 and above but has no encoding for them, so they would send nothing.
const FUNCTION_KEY = /^f([1-9]|1[0-2])$/

function isBase(part: string): boolean {
  const lower = part.toLowerCase()
  return NAMED.has(lower) || PUNCTUATION.has(lower) || FUNCTION_KEY.test(lower) || [...part].length === 1
}

/** True when herdr accepts `name` as one key (case-insensitive, surrounding spaces ignored). */
export function isHerdrKey(name: string): boolean {
  const text = name.trim()
  if (!text) return false
  if (text === 'C-c' || text === 'c-c' || text === '+') return true
  // A control character is not a key name; herdr would type it raw.
  if (/[\x00-\x1f\x7f]/.test(text)) return false
  const parts = text.split('+')
  if (parts.some((p) => p.length === 0)) return false
  const base = parts.pop()!
  return parts.every((m) => MODIFIERS.has(m.toLowerCase())) && isBase(base)
}

/**
 * A client's key name as herdr spells it, or undefined when it is not a key. Besides herdr's own
 * names this takes the caret form terminals print (`^c` → `ctrl+c`), which quick-command keys use.
 */
export function toHerdrKey(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined
  const text = name.trim()
  const caret = /^\^([A-Za-z])$/.exec(text)
  if (caret) return `ctrl+${caret[1].toLowerCase()}`
  return isHerdrKey(text) ? text : undefined
}
