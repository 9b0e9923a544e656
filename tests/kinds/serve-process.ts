/** `bridge serve` as its own process, as a user starts it: for the tests that load user configs. */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'

export interface Served {
  base: string
  /** Everything it printed up to `listening on`. */
  log: string
  /** The admin token it wrote to `<data dir>/config.json`. */
  token: string
  get(path: string): Promise<{ status: number; body: any }>
  stop(): Promise<void>
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
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
  let log = ''
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => {
        log += d.toString()
        if (log.includes(`listening on ${base}`)) resolve()
      }
      daemon.stdout!.on('data', onData)
      daemon.stderr!.on('data', onData)
      daemon.on('exit', (code) => reject(new Error(`bridge exited ${code}: ${log}`)))
    })
  } catch (err) {
    await stop()
    throw err
  }
  const token = JSON.parse(readFileSync(join(opts.env.BRIDGE_DIR!, 'config.json'), 'utf8')).admin_token as string
  const get = async (path: string) => {
    const r = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } })
    return { status: r.status, body: await r.json() }
  }
  return { base, log, token, get, stop }
}
