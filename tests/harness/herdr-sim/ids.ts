// Public id formats, as herdr prints and parses them (protocol doc 10.3 and section 3).

// herdr writes workspace numbers in a bijective base 32 whose digit for 32 is '0',
// so 32 → "0" and 33 → "11"; ids never collide with the display position "1".
const DIGITS = '123456789ABCDEFGHJKMNPQRSTVWXYZ0'

export function encodeWorkspaceNumber(n: number): string {
  if (!Number.isInteger(n) || n <= 0) throw new Error(`workspace number must be positive: ${n}`)
  let out = ''
  let rest = n
  while (rest > 0) {
    rest -= 1
    out = DIGITS[rest % 32] + out
    rest = Math.floor(rest / 32)
  }
  return out
}

export function decodeWorkspaceNumber(text: string): number | undefined {
  if (text.length === 0) return undefined
  let n = 0
  for (const ch of text.toUpperCase()) {
    const d = DIGITS.indexOf(ch)
    if (d < 0) return undefined
    n = n * 32 + d + 1
  }
  return n
}

export const workspaceId = (n: number): string => `w${encodeWorkspaceNumber(n)}`
export const tabId = (ws: string, n: number): string => `${ws}:t${n}`
export const paneId = (ws: string, n: number): string => `${ws}:p${n}`

let terminalCounter = 0
// Mirrors `term_<hex µs timestamp><hex counter>`: unique per process, opaque to clients.
export function newTerminalId(): string {
  const micros = BigInt(Date.now()) * 1000n + BigInt(Math.floor((performance.now() % 1) * 1000))
  terminalCounter += 1
  return `term_${micros.toString(16)}${terminalCounter.toString(16)}`
}

export type WorkspaceRef = { kind: 'id'; id: string } | { kind: 'position'; index: number }
export type TabRef = { kind: 'number'; ws: WorkspaceRef; n: number } | { kind: 'position'; ws: WorkspaceRef; index: number }
export type PaneRef = { kind: 'number'; ws: WorkspaceRef; n: number } | { kind: 'raw'; n: number }

// `w1`, a bare 1-based display position `"1"`, or the legacy `w_<n>`.
export function parseWorkspaceRef(text: string): WorkspaceRef | undefined {
  const t = text.trim()
  if (/^[0-9]+$/.test(t)) return { kind: 'position', index: Number(t) }
  const legacy = /^w_([0-9]+)$/.exec(t)
  if (legacy) return { kind: 'position', index: Number(legacy[1]) }
  if (/^w[0-9A-Za-z]+$/.test(t) && decodeWorkspaceNumber(t.slice(1)) !== undefined) {
    return { kind: 'id', id: `w${t.slice(1).toUpperCase()}` }
  }
  return undefined
}

// `w1:t2` (stable number), `w1:2` (1-based position) or legacy `t_<ws>_<n>`.
export function parseTabRef(text: string): TabRef | undefined {
  const t = text.trim()
  const stable = /^(.+):t([0-9]+)$/.exec(t)
  if (stable) {
    const ws = parseWorkspaceRef(stable[1])
    return ws ? { kind: 'number', ws, n: Number(stable[2]) } : undefined
  }
  const positional = /^(.+):([0-9]+)$/.exec(t)
  if (positional) {
    const ws = parseWorkspaceRef(positional[1])
    return ws ? { kind: 'position', ws, index: Number(positional[2]) } : undefined
  }
  const legacy = /^t_(.+)_([0-9]+)$/.exec(t)
  if (legacy) {
    const ws = parseWorkspaceRef(legacy[1])
    return ws ? { kind: 'number', ws, n: Number(legacy[2]) } : undefined
  }
  return undefined
}

// `w1:p2`, legacy `w1-2`, `p_<ws>_<n>` and `p_<n>`.
export function parsePaneRef(text: string): PaneRef | undefined {
  const t = text.trim()
  const canonical = /^(.+):p([0-9]+)$/.exec(t)
  if (canonical) {
    const ws = parseWorkspaceRef(canonical[1])
    return ws ? { kind: 'number', ws, n: Number(canonical[2]) } : undefined
  }
  const dashed = /^(w[0-9A-Za-z]+)-([0-9]+)$/.exec(t)
  if (dashed) {
    const ws = parseWorkspaceRef(dashed[1])
    return ws ? { kind: 'number', ws, n: Number(dashed[2]) } : undefined
  }
  const legacyWs = /^p_(.+)_([0-9]+)$/.exec(t)
  if (legacyWs) {
    const ws = parseWorkspaceRef(legacyWs[1])
    return ws ? { kind: 'number', ws, n: Number(legacyWs[2]) } : undefined
  }
  const raw = /^p_([0-9]+)$/.exec(t)
  if (raw) return { kind: 'raw', n: Number(raw[1]) }
  return undefined
}

// Valid herdr session names: 1–64 bytes of [A-Za-z0-9._-], not "." or "..".
export function isValidSessionName(name: string): boolean {
  return /^[A-Za-z0-9._-]{1,64}$/.test(name) && name !== '.' && name !== '..'
}
