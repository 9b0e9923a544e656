/**
 * Text rules shared by every screen parser: ANSI stripping, rule / box-only / chrome lines,
 * numbered options, truncation. Pure functions; nothing here throws on any input.
 */
/** One option of a blocked card. */
export interface CardOption {
  /** The number typed to pick it; 0 for a key-only option. */
  index: number
  label: string
  selected: boolean
  /** Raw keystroke for an option with no number (`esc`). */
  key?: string
  /** Choosing it widens what the agent may do unasked ("don't ask again", bypass modes): clients ask once more. */
  risky?: boolean
}

/** Option labels that widen an agent's permissions beyond this one question. */
export const RISKY_OPTION = /\bdon['’]t ask again\b|\balways allow\b|\ballow all\b|\bbypass\b|\bskip (all )?permissions\b/i

/** The options with `risky: true` on those whose label widens permissions (`test` by default {@link RISKY_OPTION}). */
export function markRisky(options: CardOption[], test: RegExp = RISKY_OPTION): CardOption[] {
  return options.map((o) => (test.test(o.label) ? { ...o, risky: true } : o))
}

// CSI, OSC (BEL or ST terminated), other two-byte escapes, then stray control bytes but \n and \t.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]/g

/** Escape sequences and control bytes (carriage returns included) removed; the one stripper of the bridge. */
export function stripAnsi(s: string): string {
  return s.replace(ANSI, '')
}

/** Screen text → lines with ANSI removed and trailing spaces trimmed; a lone CR ends a line as on screen. */
export function screenLines(text: string | undefined | null): string[] {
  if (!text) return []
  return stripAnsi(text.replace(/\r\n?/g, '\n'))
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
}

/** A horizontal rule: only `─` (6+ in a row) and spaces, or any line with a 20+ `─` run (title bars). */
export function isRule(line: string): boolean {
  return /^\s*─{6,}[\s─]*$/.test(line) || /─{20}/.test(line)
}

const BOX_ONLY = /^[\s─│╭╮╰╯├┤┬┴┼█▛▜▝▘▀▄▐▌▙▟▖▗✻✳·━┃┏┓┗┛┣┫┳┻╋═║╔╗╚╝╠╣╦╩╬┌┐└┘]*$/u

export function isBoxOnly(line: string): boolean {
  return BOX_ONLY.test(line)
}

export function isBlank(line: string): boolean {
  return line.trim() === ''
}

const NUMBERED = /^\s*(❯\s*)?(\d{1,3})\.\s+(\S.*)$/

export interface NumberedLine {
  index: number
  label: string
  selected: boolean
}

/** `  ❯ 2. Yes, and don't ask again` → {index: 2, label, selected: true}; else null. */
export function numberedOption(line: string, markers = /^❯\s*/): NumberedLine | null {
  const trimmed = line.replace(/^\s+/, '')
  const marker = markers.exec(trimmed)
  const rest = marker ? trimmed.slice(marker[0].length) : trimmed
  const m = /^(\d{1,3})\.\s+(\S.*)$/.exec(rest)
  if (!m) return null
  const label = cleanText(m[2])
  if (!label) return null
  return { index: Number(m[1]), label, selected: !!marker }
}

/** True when the line starts a numbered menu at 1. */
export function startsMenu(line: string, markers = /^❯\s*/): boolean {
  return numberedOption(line, markers)?.index === 1
}

/** A menu counts up: false when `n` does not follow the options so far (no number twice). */
export function countsUp(options: CardOption[], n: NumberedLine): boolean {
  return !options.length || n.index > options[options.length - 1].index
}

export function toOption(n: NumberedLine): CardOption {
  return { index: n.index, label: n.label, selected: n.selected }
}

/** Key hints most agents draw under their input. */
const CHROME = ['esc to interrupt', '? for shortcuts', 'enter to select', 'esc to cancel', 'tab/arrow keys', '↑/↓ to navigate']

/**
 * UI furniture rather than content: key hints, the empty input prompt, and any of `extra`
 * (lower-case phrases: the furniture one kind draws, such as its banner or mode line).
 */
export function isChrome(line: string, extra: readonly string[] = []): boolean {
  const lower = line.toLowerCase()
  if (CHROME.some((c) => lower.includes(c)) || extra.some((c) => lower.includes(c))) return true
  const t = line.trim()
  // The input prompt: `❯` (or an older build's `>`) with nothing typed.
  if (t === '>') return true
  return t.startsWith('❯') && !NUMBERED.test(t)
}

const QUESTION_PHRASES = ['do you want to', 'would you like to', 'proceed?', 'allow this', 'trust the files', 'overwrite?']

/** Ends in `?` or reads like an approval question. */
export function isQuestionShaped(line: string): boolean {
  const t = line.trim()
  if (!t) return false
  if (t.endsWith('?')) return true
  const lower = t.toLowerCase()
  return QUESTION_PHRASES.some((p) => lower.includes(p))
}

/** Spinner status line: a glyph, a word, then `…` (`✻ Thinking…`). */
export function isSpinner(line: string): boolean {
  return /^\s*[✻✳✽∗*·✶✢\u2800-\u28ff]\s+\S+.*…/u.test(line)
}

// Box drawing and block elements; stripped from every text field the card carries.
const BOX_CHARS = /[\u2500-\u259f]/g

/** Removes box-drawing glyphs and ANSI, collapses the gaps they leave at the ends. */
export function cleanText(s: string): string {
  return stripAnsi(s).replace(BOX_CHARS, '').trim()
}

/** The two patterns of a set of border glyphs, made once per set: a screen is unboxed line by line. */
const unboxPatterns = new Map<string, [RegExp, RegExp]>()
const UNBOX_SETS_MAX = 32

/** Strips one panel border glyph (and the space beside it) from each end of a line. */
export function unbox(line: string, borders = '│┃┊╎┆┇┋║'): string {
  let p = unboxPatterns.get(borders)
  if (!p) {
    const cls = `[${borders}]`
    p = [new RegExp(`^(\\s*)${cls} ?`, 'u'), new RegExp(` ?${cls}\\s*$`, 'u')]
    if (unboxPatterns.size < UNBOX_SETS_MAX) unboxPatterns.set(borders, p)
  }
  return line.replace(p[0], '$1').replace(p[1], '')
}

/** Trim; past n characters keep n−1 and add `…`. Counts code points, not UTF-16 units. */
export function truncate(s: string, n = 120): string {
  const t = s.trim()
  const chars = Array.from(t)
  if (chars.length <= n) return t
  return (
    chars
      .slice(0, n - 1)
      .join('')
      .trimEnd() + '…'
  )
}

/** Lines a reader would call content: no blanks, rules, box-only lines or chrome (`extra` as for isChrome). */
export function readableLines(lines: string[], extra: readonly string[] = []): string[] {
  const out: string[] = []
  for (const l of lines) {
    if (isBlank(l) || isRule(l) || isBoxOnly(l) || isChrome(l, extra)) continue
    const c = cleanText(l)
    if (c) out.push(c)
  }
  return out
}

export function firstLine(s: string): string {
  return (
    s
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? ''
  )
}
