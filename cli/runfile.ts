import { lstatSync, mkdirSync, readFileSync, rmSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeFileAtomic } from '../storage/atomic-file.ts'

/**
 * Run files: a running bridge leaves `{pid, url, data_dir}` under a per-user runtime dir, named
 * by port, so a CLI command aimed at an address can find that bridge's data dir (and admin
 * token) when its own config is missing or refused — e.g. beside `npm run demo`.
 */
export interface RunFile {
  pid: number
  url: string
  data_dir: string
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
    const r = JSON.parse(readFileSync(join(dir, `${port}.json`), 'utf8')) as RunFile
    if (typeof r?.pid !== 'number' || typeof r.data_dir !== 'string' || typeof r.url !== 'string') return null
    return !live || alive(r.pid) ? r : null
  } catch {
    return null
  }
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
