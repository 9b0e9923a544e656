// herdr's key-name grammar and legacy terminal encodings (protocol doc 5.1).

export interface ParsedKey {
  base: string // a named key ("enter", "f5", "up"…) or a single character
  ctrl: boolean
  shift: boolean
  alt: boolean
  superKey: boolean
}

const NAMED = new Map<string, string>([
  ['enter', 'enter'],
  ['return', 'enter'],
  ['esc', 'esc'],
  ['escape', 'esc'],
  ['tab', 'tab'],
  ['backspace', 'backspace'],
  ['bs', 'backspace'],
  ['space', ' '],
  ['left', 'left'],
  ['right', 'right'],
  ['up', 'up'],
  ['down', 'down'],
])

const PUNCTUATION = new Map<string, string>([
  ['minus', '-'],
  ['plus', '+'],
  ['comma', ','],
  ['period', '.'],
  ['slash', '/'],
  ['backslash', '\\'],
  ['quote', "'"],
  ['double_quote', '"'],
  ['double-quote', '"'],
  ['semicolon', ';'],
  ['colon', ':'],
  ['percent', '%'],
  ['ampersand', '&'],
  ['backtick', '`'],
])

const MODIFIERS = new Map<string, keyof Omit<ParsedKey, 'base'> | 'hyper'>([
  ['ctrl', 'ctrl'],
  ['control', 'ctrl'],
  ['shift', 'shift'],
  ['alt', 'alt'],
  ['option', 'alt'],
  ['meta', 'alt'],
  ['cmd', 'superKey'],
  ['command', 'superKey'],
  ['super', 'superKey'],
  ['hyper', 'hyper'],
])

function parseBase(part: string): string | undefined {
  const lower = part.toLowerCase()
  const named = NAMED.get(lower)
  if (named) return named
  const punct = PUNCTUATION.get(lower)
  if (punct) return punct
  if (/^f([1-9][0-9]?)$/.test(lower)) {
    const n = Number(lower.slice(1))
    return n >= 1 && n <= 24 ? lower : undefined
  }
  if ([...part].length === 1) return part
  return undefined
}

export function parseKey(raw: string): ParsedKey | undefined {
  const text = raw.trim()
  if (text.length === 0) return undefined
  // The tmux-style alias is accepted in exactly this spelling only.
  if (text === 'C-c' || text === 'c-c') return { base: 'c', ctrl: true, shift: false, alt: false, superKey: false }
  if (text === '+') return { base: '+', ctrl: false, shift: false, alt: false, superKey: false }
  const parts = text.split('+')
  if (parts.some((p) => p.length === 0)) return undefined
  const key: ParsedKey = { base: '', ctrl: false, shift: false, alt: false, superKey: false }
  for (const mod of parts.slice(0, -1)) {
    const m = MODIFIERS.get(mod.toLowerCase())
    if (!m) return undefined
    if (m !== 'hyper') key[m] = true
  }
  const last = parts[parts.length - 1]
  const base = parseBase(last)
  if (base === undefined) return undefined
  // A lone uppercase ASCII letter means shift+letter.
  if (/^[A-Z]$/.test(base)) {
    key.shift = true
    key.base = base.toLowerCase()
  } else {
    key.base = base.length === 1 ? base : base.toLowerCase()
  }
  return key
}

/** Parses every key first, so one bad name rejects the whole request before any write. */
export function parseKeys(keys: string[]): { ok: true; keys: ParsedKey[] } | { ok: false; bad: string } {
  const out: ParsedKey[] = []
  for (const k of keys) {
    const parsed = parseKey(k)
    if (!parsed) return { ok: false, bad: k }
    out.push(parsed)
  }
  return { ok: true, keys: out }
}

export interface KeyModes {
  applicationCursor: boolean
}

const ESC = '\x1b'
const F_KEYS: Record<string, string> = {
  f1: 'P',
  f2: 'Q',
  f3: 'R',
  f4: 'S',
  f5: '15',
  f6: '17',
  f7: '18',
  f8: '19',
  f9: '20',
  f10: '21',
  f11: '23',
  f12: '24',
}
const ARROWS: Record<string, string> = { up: 'A', down: 'B', right: 'C', left: 'D' }

function modifierParam(k: ParsedKey): number {
  return 1 + (k.shift ? 1 : 0) + (k.alt ? 2 : 0) + (k.ctrl ? 4 : 0) + (k.superKey ? 8 : 0)
}

export function encodeKey(k: ParsedKey, modes: KeyModes): string {
  const mod = modifierParam(k)
  if (k.base in ARROWS) {
    const final = ARROWS[k.base]
    if (mod > 1) return `${ESC}[1;${mod}${final}`
    return modes.applicationCursor ? `${ESC}O${final}` : `${ESC}[${final}`
  }
  if (k.base in F_KEYS) {
    const code = F_KEYS[k.base]
    const isSs3 = /^[PQRS]$/.test(code)
    if (mod > 1) return isSs3 ? `${ESC}[1;${mod}${code}` : `${ESC}[${code};${mod}~`
    return isSs3 ? `${ESC}O${code}` : `${ESC}[${code}~`
  }
  // f13 and above parse but have no legacy encoding.
  if (/^f[0-9]+$/.test(k.base)) return ''
  let seq: string
  switch (k.base) {
    case 'enter':
      seq = '\r'
      break
    case 'tab':
      return k.shift ? `${ESC}[Z` : k.alt ? `${ESC}\t` : '\t'
    case 'esc':
      seq = ESC
      break
    case 'backspace':
      seq = k.ctrl ? '\x08' : '\x7f'
      break
    default:
      seq = encodeChar(k)
  }
  return k.alt ? ESC + seq : seq
}

function encodeChar(k: ParsedKey): string {
  let ch = k.base
  if (k.ctrl) {
    const lower = ch.toLowerCase()
    if (/^[a-z]$/.test(lower)) return String.fromCharCode(lower.charCodeAt(0) - 96)
    if (ch === ' ' || ch === '@' || ch === '2') return '\x00'
    const table: Record<string, string> = { '[': ESC, '\\': '\x1c', ']': '\x1d', '^': '\x1e', _: '\x1f', '/': '\x1f', '?': '\x7f' }
    if (ch in table) return table[ch]
  }
  if (k.shift && /^[a-z]$/.test(ch)) ch = ch.toUpperCase()
  return ch
}
