// Reads process facts from Linux /proc, the same sources herdr uses for pane.process_info.
import fs from 'node:fs'

export interface ProcInfo {
  pid: number
  name: string
  argv: string[]
  cwd?: string
}

interface Stat {
  comm: string
  pgrp: number
  tpgid: number
}

function readStat(pid: number): Stat | undefined {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // comm may contain spaces and parentheses; it ends at the last ')'.
    const open = raw.indexOf('(')
    const close = raw.lastIndexOf(')')
    const rest = raw.slice(close + 2).split(' ')
    // rest: state ppid pgrp session tty_nr tpgid …
    return { comm: raw.slice(open + 1, close), pgrp: Number(rest[2]), tpgid: Number(rest[5]) }
  } catch {
    return undefined
  }
}

/** The terminal's foreground process group as seen from the session leader (stat field tpgid). */
export function foregroundGroup(shellPid: number): number | undefined {
  const st = readStat(shellPid)
  return st && st.tpgid > 0 ? st.tpgid : undefined
}

export function processCwd(pid: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/${pid}/cwd`)
  } catch {
    return undefined
  }
}

function processArgv(pid: number): string[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a, i, all) => a !== '' || i < all.length - 1)
  } catch {
    return []
  }
}

export function processesInGroup(pgid: number): ProcInfo[] {
  const out: ProcInfo[] = []
  let entries: string[]
  try {
    entries = fs.readdirSync('/proc')
  } catch {
    return out
  }
  for (const e of entries) {
    if (!/^[0-9]+$/.test(e)) continue
    const pid = Number(e)
    const st = readStat(pid)
    if (!st || st.pgrp !== pgid) continue
    out.push({ pid, name: st.comm, argv: processArgv(pid), cwd: processCwd(pid) })
  }
  return out.sort((a, b) => a.pid - b.pid)
}
