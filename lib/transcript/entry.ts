/**
 * The kind-agnostic transcript entry every /agent-transcript stream carries (docs/agent-kinds.md,
 * docs/api-websockets.md), and the text rules every reader shares.
 */

export type Role = 'user' | 'assistant' | 'system'
export type EntryKind = 'message' | 'thinking' | 'tool_call' | 'tool_result' | 'attachment'

export interface ToolInfo {
  id: string
  name: string
  title?: string
  subtitle?: string
  command?: string
  file?: string
  diff?: string
  diff_truncated?: boolean
  input_summary?: string
}

export interface ToolResult {
  for_id: string
  ok: boolean
  output_summary?: string
  diff?: string
  truncated?: boolean
}

/** An entry as a reader produces it; the stream adds `seq`. */
export interface RawEntry {
  id: string
  parent_id?: string
  ts?: string
  role: Role
  kind: EntryKind
  text?: string
  tool?: ToolInfo
  result?: ToolResult
  parsed: boolean
}

export interface Entry extends RawEntry {
  seq: number
}

export interface RosterRow {
  agent_id: string
  tool_use_id: string
  agent_type: string
  description: string
  spawn_depth: number
  done: boolean
  last_activity_ts?: number
}

export const TEXT_CAP = 20_000
export const OUTPUT_CAP = 4_000
export const SUBTITLE_CAP = 120
export const SUMMARY_CAP = 200

/** Caps `s` at `n` runes (code points): over the cap keeps n−1 runes and an ellipsis. */
export function capRunes(s: string, n: number): { text: string; cut: boolean } {
  // A UTF-16 length within the cap is within it in runes too.
  if (s.length <= n) return { text: s, cut: false }
  let runes = 0
  let i = 0
  let cutAt = 0
  while (i < s.length) {
    if (runes === n - 1) cutAt = i
    if (runes === n) return { text: s.slice(0, cutAt) + '…', cut: true }
    i += s.codePointAt(i)! > 0xffff ? 2 : 1
    runes++
  }
  return { text: s, cut: false }
}

export const cap = (s: string, n: number) => capRunes(s, n).text

/** Whitespace runs collapsed to one space, trimmed, capped. */
export function oneLine(s: string, n: number): string {
  return cap(s.replace(/\s+/g, ' ').trim(), n)
}

export { stripAnsi } from '../text.ts'

export function basename(p: string): string {
  const trimmed = p.replace(/[\\/]+$/, '')
  const i = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'))
  return i < 0 ? trimmed : trimmed.slice(i + 1)
}

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
/** `o[k]` when `o` is a JSON object, else undefined: the `o?.k` of a value not yet narrowed. */
export const field = (o: unknown, k: string): unknown => (isObj(o) ? o[k] : undefined)
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** Drops undefined, empty-string and false-flag optional fields so absent stays absent. */
export function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) {
    const v = o[k]
    if (v === undefined || v === '') delete o[k]
  }
  return o
}

/** The entry for a record that cannot be read: kept, and marked so. */
export const unparsedEntry = (role: Role = 'system'): RawEntry => ({ id: '', role, kind: 'message', parsed: false })

/** A JSONL line as an object, or null when it is not JSON or not an object. */
export function parseJsonRecord(line: string): Record<string, unknown> | null {
  try {
    const o: unknown = JSON.parse(line)
    return isObj(o) ? o : null
  } catch {
    return null
  }
}

/**
 * One JSONL line → entries through `fn`: a line that is not a JSON object, or that `fn` throws
 * on, is one unparsed system entry (never an exception).
 */
export function normalizeJsonLine(line: string, fn: (record: Record<string, unknown>) => RawEntry[]): RawEntry[] {
  const o = parseJsonRecord(line)
  if (!o) return [unparsedEntry()]
  try {
    return fn(o)
  } catch {
    return [unparsedEntry()]
  }
}
