/** Unified-diff builders for tool calls and results (the entries' `tool.diff` and `result.diff`), capped. */
import { capRunes, isObj } from './entry.ts'

export const DIFF_LINE_CAP = 400
export const DIFF_RUNE_CAP = 12_000

export interface BuiltDiff {
  diff: string
  truncated: boolean
}

/** Caps at 400 lines, then 12 000 runes; trailing newlines trimmed. */
export function capDiff(lines: string[]): BuiltDiff {
  let truncated = false
  if (lines.length > DIFF_LINE_CAP) {
    lines = lines.slice(0, DIFF_LINE_CAP)
    truncated = true
  }
  const c = capRunes(lines.join('\n').replace(/\n+$/, ''), DIFF_RUNE_CAP)
  return { diff: c.text, truncated: truncated || c.cut }
}

/** The applied patch of a result: `@@ -oS,oL +nS,nL @@` per hunk then its prefixed lines. */
export function diffFromStructuredPatch(patch: unknown): BuiltDiff | undefined {
  if (!Array.isArray(patch) || patch.length === 0) return undefined
  const out: string[] = []
  for (const h of patch) {
    if (!isObj(h)) continue
    out.push(`@@ -${num(h.oldStart)},${num(h.oldLines)} +${num(h.newStart)},${num(h.newLines)} @@`)
    if (Array.isArray(h.lines)) for (const l of h.lines) if (typeof l === 'string') out.push(l)
    // Stop building once past the cap: the rest would be cut anyway.
    if (out.length > DIFF_LINE_CAP) break
  }
  return out.length ? capDiff(out) : undefined
}

/** Write preview: every line of the new content added. */
export function diffForWrite(content: string): BuiltDiff {
  const parts = content.split('\n')
  const out = [`@@ -0,0 +1,${parts.length} @@`]
  for (let i = 0; i < parts.length && out.length <= DIFF_LINE_CAP; i++) out.push('+' + parts[i])
  return capDiff(out)
}

const CONTEXT = 3

/**
 * Edit preview from old/new strings: common leading and trailing lines trimmed to at most three
 * lines of context each; line numbers are relative to the snippet, the result's patch has the
 * file's.
 */
export function diffForEdit(oldStr: string, newStr: string): BuiltDiff {
  const a = oldStr.split('\n')
  const b = newStr.split('\n')
  let pre = 0
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++
  let suf = 0
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++
  const before = Math.min(CONTEXT, pre)
  const after = Math.min(CONTEXT, suf)
  const first = pre - before + 1
  const out = [`@@ -${first} +${first} @@`]
  // Lines past the cap are never built: a huge edit costs no more than a small one.
  const push = (l: string) => out.length <= DIFF_LINE_CAP && out.push(l)
  for (let i = pre - before; i < pre; i++) push(' ' + a[i])
  for (let i = pre; i < a.length - suf; i++) push('-' + a[i])
  for (let i = pre; i < b.length - suf; i++) push('+' + b[i])
  for (let i = a.length - suf; i < a.length - suf + after; i++) push(' ' + a[i])
  return capDiff(out)
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
