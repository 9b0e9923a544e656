import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { basename } from 'node:path'

/** A TCP socket in LISTEN state as the kernel lists it. */
export interface ProcListener {
  inode: string
  bind: string
  port: number
}

/** `0100007F` → `127.0.0.1` (each 32-bit word is host-endian, i.e. little-endian on x86/arm). */
function hexToIPv4(hex: string): string {
  const n = Number.parseInt(hex, 16)
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255].join('.')
}

function hexToIPv6(hex: string): string {
  const bytes: number[] = []
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8)
    for (let b = 3; b >= 0; b--) bytes.push(Number.parseInt(word.slice(b * 2, b * 2 + 2), 16))
  }
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255) return `::ffff:${bytes.slice(12).join('.')}`
  const groups: number[] = []
  for (let i = 0; i < 16; i += 2) groups.push((bytes[i] << 8) | bytes[i + 1])
  // Compress the longest run of zero groups.
  let best = -1
  let bestLen = 0
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLen && j - i > 1) [best, bestLen] = [i, j - i]
    i = j
  }
  const hexes = groups.map((g) => g.toString(16))
  if (best < 0) return hexes.join(':')
  return `${hexes.slice(0, best).join(':')}::${hexes.slice(best + bestLen).join(':')}`
}

/** Listening sockets of `/proc/net/tcp` or `/proc/net/tcp6` text. */
export function parseProcNetTcp(text: string, v6: boolean): ProcListener[] {
  const out: ProcListener[] = []
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    if (f.length < 10 || f[3] !== '0A') continue // 0A = TCP_LISTEN
    const [addr, port] = f[1].split(':')
    out.push({ inode: f[9], bind: v6 ? hexToIPv6(addr) : hexToIPv4(addr), port: Number.parseInt(port, 16) })
  }
  return out
}

export interface ProcEntry {
  pid: number
  ppid: number
  comm: string
}

export function readStat(pid: number): ProcEntry | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const close = raw.lastIndexOf(')')
    const rest = raw.slice(close + 2).split(' ')
    return { pid, comm: raw.slice(raw.indexOf('(') + 1, close), ppid: Number(rest[1]) }
  } catch {
    return undefined
  }
}

/**
 * A process's name: its `comm`, which is the name of its main thread. Node 24 names its main
 * thread `MainThread`, so for such a process the program is read from its executable instead
 * (then `node`, as on older Node). Other names are kept as they are: a script's comm names the
 * script, its executable only the interpreter.
 */
export function processName(pid: number): string {
  const comm = readStat(pid)?.comm ?? ''
  if (comm !== 'MainThread') return comm
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`)) || comm
  } catch {
    return comm
  }
}

/**
 * Every listening TCP socket with its owning process, from /proc alone (no lsof needed): socket
 * inodes from /proc/net/tcp{,6}, matched against the `socket:[inode]` links in /proc/<pid>/fd.
 * Processes we may not inspect are skipped.
 */
export function procListeners(): { pid: number; proc: string; bind: string; port: number }[] {
  const socks = new Map<string, ProcListener>()
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    try {
      for (const l of parseProcNetTcp(readFileSync(file, 'utf8'), v6)) if (l.inode !== '0') socks.set(l.inode, l)
    } catch {}
  }
  if (socks.size === 0) return []
  const out: { pid: number; proc: string; bind: string; port: number }[] = []
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${e}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      let link: string
      try {
        link = readlinkSync(`/proc/${e}/fd/${fd}`)
      } catch {
        continue
      }
      if (!link.startsWith('socket:[')) continue
      const l = socks.get(link.slice(8, -1))
      if (!l) continue
      const pid = Number(e)
      out.push({ pid, proc: processName(pid), bind: l.bind, port: l.port })
    }
  }
  return out
}
