import { lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeFileAtomic } from '../lib/atomic-file.ts'

/**
 * Run files: a running bridge leaves `{pid, url, data_dir}` under a per-user runtime dir, named
 * by port, so a CLI command aimed at an address can find that bridge's data dir (and admin
 * token) when its own config is missing or refused — e.g. beside `npm run demo` — and a command
 * given only a data dir finds the address its bridge listens on (`serve --addr` is not saved).
 */
export interface RunFile {
  pid: number
  url: string
  data_dir: string
  /** SHA-256 fingerprint of the certificate a bridge serving HTTPS presents (the CLI pins it). */
  tls_fingerprint?: string
}

/** $XDG_RUNTIME_DIR/herdr-bridge, else <tmpdir>/herdr-bridge-<uid>: neither depends on HOME. */
export function runDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'herdr-bridge')
  return join(tmpdir(), `herdr-bridge-${process.getuid?.() ?? 'user'}`)
}

/** Writes the run file (dir 0700, file 0600); returns a remover, or null when it could not. */
export function writeRunFile(port: number, info: RunFile, env: NodeJS.ProcessEnv = process.env): (() => void) | null {
  const dir = runDir(env)
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    if (!ownedPrivateDir(dir)) return null
    const file = join(dir, `${port}.json`)
    writeFileAtomic(file, JSON.stringify(info) + '\n')
    return () => {
      // Only our own: another bridge may have taken the port over since.
      if (readRunFile(port, env, false)?.pid === info.pid) rmSync(file, { force: true })
    }
  } catch {
    return null
  }
}

/** The run file of a live bridge on `port`, or null. */
export function readRunFile(port: number, env: NodeJS.ProcessEnv = process.env, live = true): RunFile | null {
  const dir = runDir(env)
  if (!ownedPrivateDir(dir)) return null
  try {
    return parseRunFile(readFileSync(join(dir, `${port}.json`), 'utf8'), live)
  } catch {
    return null
  }
}

/** Every live bridge of this user, by port. */
export function listRunFiles(env: NodeJS.ProcessEnv = process.env): RunFile[] {
  const dir = runDir(env)
  if (!ownedPrivateDir(dir)) return []
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => /^\d+\.json$/.test(n))
  } catch {
    return []
  }
  const out: RunFile[] = []
  for (const n of names.sort((a, b) => parseInt(a) - parseInt(b))) {
    try {
      const r = parseRunFile(readFileSync(join(dir, n), 'utf8'), true)
      if (r) out.push(r)
    } catch {
      // Removed between the listing and the read: that bridge has just stopped.
    }
  }
  return out
}

/** The live bridge serving `dataDir`, wherever it listens; null when none runs. */
export function runFileOfDir(dataDir: string, env: NodeJS.ProcessEnv = process.env): RunFile | null {
  return listRunFiles(env).find((r) => r.data_dir === dataDir) ?? null
}

function parseRunFile(text: string, live: boolean): RunFile | null {
  const r = JSON.parse(text) as RunFile
  if (typeof r?.pid !== 'number' || typeof r.data_dir !== 'string' || typeof r.url !== 'string') return null
  if (r.tls_fingerprint !== undefined && typeof r.tls_fingerprint !== 'string') return null
  return !live || alive(r.pid) ? r : null
}

/** A shared tmpdir could hold a dir planted by someone else: trust only our own, private one. */
function ownedPrivateDir(dir: string): boolean {
  try {
    const st = lstatSync(dir)
    if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid())) return false
    if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700)
    return true
  } catch {
    return false
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
