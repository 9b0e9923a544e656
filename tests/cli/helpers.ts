import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdtempSync, mkdirSync, openSync, readSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa, type Result } from 'execa'
import { expect, vi } from 'vitest'
import { REPO_ROOT } from '../harness/bridge.ts'
import { freePort } from '../harness/serve.ts'

export { freePort }

export const BIN = join(REPO_ROOT, 'cli/bin.mjs')

/** A temp root with its own HOME, data dir and runtime dir (run files), and the env to match. */
export function sandbox(prefix = 'bridge-cli-') {
  const root = mkdtempSync(join(tmpdir(), prefix))
  const home = join(root, 'home')
  const run = join(root, 'run')
  mkdirSync(home, { recursive: true })
  mkdirSync(run, { recursive: true, mode: 0o700 })
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_RUNTIME_DIR: run,
    HERDR_SOCKET_PATH: '',
    BRIDGE_DIR: join(root, 'data'),
    BRIDGE_ADDR: '',
    BRIDGE_ADMIN_TOKEN: '',
    BRIDGE_MODE: '',
    BRIDGE_DEBUG: '',
    GCE_METADATA_HOST: '127.0.0.1:1',
    GOOGLE_APPLICATION_CREDENTIALS: '',
    CLOUDSDK_CONFIG: join(home, 'gcloud'),
  }
  return { root, home, run, dataDir: join(root, 'data'), env }
}

/** A script runs through this node; a native executable (the single executable) runs as itself. */
function command(bin: string, args: string[]): [string, string[]] {
  const head = Buffer.alloc(4)
  const fd = openSync(bin, 'r')
  try {
    readSync(fd, head, 0, 4, 0)
  } finally {
    closeSync(fd)
  }
  return head.toString('latin1') === '\x7fELF' ? [bin, args] : [process.execPath, [bin, ...args]]
}

export function cli(args: string[], env: NodeJS.ProcessEnv, bin = BIN): Promise<Result> {
  return execa(...command(bin, args), { env, extendEnv: false, reject: false, timeout: 60_000 }) as Promise<Result>
}

/** The failure contract: non-zero exit, exactly one line on stderr, no stack. */
export function expectOneLineError(r: Result, line: string | RegExp): void {
  const stderr = String(r.stderr)
  expect(r.exitCode, `stdout: ${r.stdout}\nstderr: ${stderr}`).not.toBe(0)
  expect(stderr.endsWith('\n') ? stderr.slice(0, -1) : stderr).not.toContain('\n')
  expect(stderr).not.toMatch(/\n\s+at /)
  if (typeof line === 'string') expect(stderr.trim()).toBe(`bridge: ${line}`)
  else expect(stderr.trim()).toMatch(line)
}

export interface Daemon {
  proc: ChildProcess
  url: string
  port: number
  output(): string
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>
  stop(): Promise<number | null>
}

/** `bridge serve` as its own process, resolved once it listens. */
export async function startDaemon(env: NodeJS.ProcessEnv, extra: string[] = [], bin = BIN): Promise<Daemon> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const proc = spawn(...command(bin, ['serve', '--addr', `127.0.0.1:${port}`, ...extra]), { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  proc.stdout!.on('data', (d) => (out += d))
  proc.stderr!.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)))
  const d: Daemon = {
    proc,
    url,
    port,
    output: () => out,
    async waitFor(text, timeoutMs = 45_000) {
      await vi.waitFor(
        () => {
          if (proc.exitCode !== null) throw new Error(`daemon exited ${proc.exitCode}: ${out}`)
          if (typeof text === 'string' ? !out.includes(text) : !text.test(out)) throw new Error(`no ${text} yet in:\n${out}`)
        },
        { timeout: timeoutMs, interval: 100 },
      )
    },
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      return exited
    },
  }
  await d.waitFor(`listening on ${url}`)
  return d
}
