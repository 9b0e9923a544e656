/**
 * Splits one `git diff HEAD` (run with --src-prefix=a/ --dst-prefix=b/ and core.quotePath=false)
 * into one section per file, keyed by the new path, with added/removed line counts.
 */

export interface PatchSection {
  path: string
  diff: string
  additions: number
  deletions: number
}

export function splitPatch(out: string): Map<string, PatchSection> {
  const sections = new Map<string, PatchSection>()
  if (!out) return sections
  const starts: number[] = []
  if (out.startsWith('diff --git ')) starts.push(0)
  for (let at = out.indexOf('\ndiff --git '); at >= 0; at = out.indexOf('\ndiff --git ', at + 1)) starts.push(at + 1)
  for (let k = 0; k < starts.length; k++) {
    const text = out.slice(starts[k], k + 1 < starts.length ? starts[k + 1] : out.length)
    const s = parseSection(text)
    if (s) sections.set(s.path, s)
  }
  return sections
}

function parseSection(text: string): PatchSection | null {
  const lines = text.split('\n')
  let path: string | null = null
  let additions = 0
  let deletions = 0
  let inHunks = false
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]
    if (!inHunks) {
      if (line.startsWith('@@')) inHunks = true
      else if (line.startsWith('rename to ')) path = unquote(line.slice(10))
      else if (line.startsWith('copy to ')) path = unquote(line.slice(8))
      continue
    }
    const c = line.charCodeAt(0)
    if (c === 43 /* + */) additions++
    else if (c === 45 /* - */) deletions++
  }
  path ??= headerPath(lines[0].slice('diff --git '.length))
  if (path === null) return null
  return { path, diff: text, additions, deletions }
}

/**
 * The new path from `a/<old> b/<new>`. Unquoted and not a rename, both halves are equal, which
 * settles paths that contain ' b/'.
 */
export function headerPath(rest: string): string | null {
  if (rest.startsWith('"')) {
    const first = readQuoted(rest, 0)
    if (!first) return null
    const second = rest.slice(first.end + 1)
    const b = second.startsWith('"') ? readQuoted(second, 0)?.value : second
    return b?.startsWith('b/') ? b.slice(2) : null
  }
  const n = rest.length
  if ((n - 1) % 2 === 0) {
    const a = rest.slice(0, (n - 1) / 2)
    const b = rest.slice((n + 1) / 2)
    if (a.startsWith('a/') && b.startsWith('b/') && a.slice(2) === b.slice(2)) return b.slice(2)
  }
  const q = rest.indexOf(' "b/')
  if (q >= 0) return readQuoted(rest, q + 1)?.value.slice(2) ?? null
  const at = rest.lastIndexOf(' b/')
  return at >= 0 ? rest.slice(at + 3) : null
}

function unquote(s: string): string {
  return s.startsWith('"') ? (readQuoted(s, 0)?.value ?? s) : s
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 }

/** git's C-style quoting: escapes and octal bytes, decoded as UTF-8. */
function readQuoted(s: string, from: number): { value: string; end: number } | null {
  const bytes: number[] = []
  for (let i = from + 1; i < s.length; i++) {
    const ch = s[i]
    if (ch === '"') return { value: Buffer.from(bytes).toString('utf8'), end: i + 1 }
    if (ch !== '\\') {
      // Whole code points: an astral character is two UTF-16 units, and one alone is not UTF-8.
      const cp = s.codePointAt(i)!
      const whole = String.fromCodePoint(cp)
      for (const b of Buffer.from(whole, 'utf8')) bytes.push(b)
      i += whole.length - 1
      continue
    }
    const next = s[++i]
    if (next === undefined) return null // a trailing backslash: not git's quoting
    if (next >= '0' && next <= '7') {
      bytes.push(parseInt(s.slice(i, i + 3), 8))
      i += 2
    } else if (next in ESCAPES) bytes.push(ESCAPES[next])
    else bytes.push(next.charCodeAt(0))
  }
  return null
}
