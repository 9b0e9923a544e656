/** A unified diff for one file, split into header lines and hunks with line numbers. */
export interface DiffLine {
  kind: 'add' | 'del' | 'ctx' | 'meta'
  text: string
  /** New-side line number (ctx and add). */
  newNo?: number
  oldNo?: number
}

export interface Hunk {
  header: string
  oldStart: number
  newStart: number
  newCount: number
  lines: DiffLine[]
}

export function parseDiff(diff: string): { meta: string[]; hunks: Hunk[] } {
  const meta: string[] = []
  const hunks: Hunk[] = []
  let cur: Hunk | null = null
  let oldNo = 0
  let newNo = 0
  for (const line of diff.split('\n')) {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line)
    if (m) {
      cur = { header: line, oldStart: +m[1], newStart: +m[3], newCount: m[4] === undefined ? 1 : +m[4], lines: [] }
      hunks.push(cur)
      oldNo = +m[1]
      newNo = +m[3]
      continue
    }
    if (!cur) {
      if (line) meta.push(line)
      continue
    }
    if (line.startsWith('+')) cur.lines.push({ kind: 'add', text: line.slice(1), newNo: newNo++ })
    else if (line.startsWith('-')) cur.lines.push({ kind: 'del', text: line.slice(1), oldNo: oldNo++ })
    else if (line.startsWith(' ')) cur.lines.push({ kind: 'ctx', text: line.slice(1), oldNo: oldNo++, newNo: newNo++ })
    else if (line.startsWith('\\')) cur.lines.push({ kind: 'meta', text: line })
    else if (line === '') continue
    else cur.lines.push({ kind: 'meta', text: line })
  }
  return { meta, hunks }
}

/**
 * The new-side gap above hunk `i` (lines no hunk shows): [start, end] inclusive, or null.
 * Used to offer "expand" with GET /diff/expand.
 */
export function gapAbove(hunks: Hunk[], i: number): [number, number] | null {
  const h = hunks[i]
  const prevEnd = i === 0 ? 0 : hunks[i - 1].newStart + hunks[i - 1].newCount - 1
  const start = prevEnd + 1
  const end = h.newStart - 1
  return end >= start ? [start, end] : null
}

export const canExpand = (status: string): boolean => status !== 'deleted' && status !== 'untracked'
