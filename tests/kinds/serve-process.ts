/** `bridge serve` as its own process, as a user starts it: for the tests that load user configs. */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, untilListening } from '../harness/serve.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

export interface Served {
  base: string
  /** Everything it printed up to `listening on`. */
  log: string
  /** The admin token it wrote to `<data dir>/config.json`. */
  token: string
  /** The daemon's process id. */
  pid: number
  /** GET with the admin token; the body as the route documents its 200 answer. */
  get<P extends keyof GetResponses>(path: P): Promise<{ status: number; body: GetResponses[P] }>
  stop(): Promise<void>
}

/**
 * Starts `<bin> serve <args> --addr 127.0.0.1:<free port>` with `env` (which must set BRIDGE_DIR)
 * and resolves once it listens; rejects with its output when it exits first.
 */
export async function startServe(opts: { bin: string; args?: string[]; env: NodeJS.ProcessEnv; cwd: string }): Promise<Served> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const daemon: ChildProcess = spawn(process.execPath, [opts.bin, 'serve', ...(opts.args ?? []), '--addr', `127.0.0.1:${port}`], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const stop = async () => {
    if (daemon.exitCode !== null || daemon.signalCode !== null) return
    const gone = new Promise((r) => daemon.once('exit', r))
    daemon.kill('SIGTERM')
    await gone
  }
  const served = untilListening(daemon, base)
  try {
    await served.listening
  } catch (err) {
    await stop()
    throw err
  }
  const log = served.output()
  const token = JSON.parse(readFileSync(join(opts.env.BRIDGE_DIR!, 'config.json'), 'utf8')).admin_token as string
  const get = async <P extends keyof GetResponses>(path: P) => {
    const r = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } })
    return { status: r.status, body: (await r.json()) as GetResponses[P] }
  }
  return { base, log, token, pid: daemon.pid!, get, stop }
}
