/**
 * The daemon (`bridge serve`) in its own process under a lowered descriptor limit
 * (`prlimit --nofile`), and the clients that push it there: one authenticated keep-alive
 * connection opened before the flood, and a flood of unauthenticated /pair requests that send
 * one byte of body and then nothing (held until the 15 s body deadline).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT } from '../harness/bridge.ts'
import { freePort, untilListening } from '../harness/serve.ts'

const BIN = join(REPO_ROOT, 'cli/bin.mjs')

export interface Daemon {
  proc: ChildProcess
  base: string
  port: number
  token: string
  /** Its HOME; the data dir is `data` inside. */
  dir: string
  output: () => string
  exited: () => boolean
  stop(): Promise<void>
}

/** Starts `bridge serve` at `nofile` descriptors; herdr is `none.sock` (absent) unless env names one. */
export async function startDaemon(nofile: number, extraEnv: NodeJS.ProcessEnv = {}): Promise<Daemon> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-fds-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env = { ...process.env, BRIDGE_DIR: join(dir, 'data'), HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), HERDR_SOCKET_PATH: join(dir, 'none.sock'), ...extraEnv }
  const proc = spawn('prlimit', [`--nofile=${nofile}:${nofile}`, process.execPath, BIN, 'serve', '--addr', `127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let gone = false
  const exit = new Promise<void>((r) => proc.once('exit', () => ((gone = true), r())))
  const { listening, output } = untilListening(proc, base)
  await listening
  const token = JSON.parse(readFileSync(join(dir, 'data', 'config.json'), 'utf8')).admin_token as string
  return {
    proc,
    base,
    port,
    token,
    dir,
    output,
    exited: () => gone,
    async stop() {
      if (!gone) {
        proc.kill('SIGTERM')
        await exit
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** One keep-alive connection, authenticated before the flood, reused for every call. */
export function keptClient(d: Daemon) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  return {
    call(path: string, json?: unknown): Promise<{ status: number; body: string }> {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string> = { authorization: `Bearer ${d.token}` }
        if (json !== undefined) headers['content-type'] = 'application/json'
        const req = httpRequest(`${d.base}${path}`, { agent, method: json === undefined ? 'GET' : 'POST', headers }, (res) => {
          let body = ''
          res.on('data', (c) => (body += c))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
        })
        req.on('error', reject)
        req.end(json === undefined ? undefined : JSON.stringify(json))
      })
    },
    close: () => agent.destroy(),
  }
}

export interface FloodSocket {
  socket: Socket
  /** Everything the daemon sent on it. */
  received: () => string
  closed: () => boolean
}

/** `n` unauthenticated clients that send /pair headers and one byte of body, then nothing. */
export function flood(d: Daemon, n: number): FloodSocket[] {
  return Array.from({ length: n }, () => {
    const s = connect(d.port, '127.0.0.1')
    let got = ''
    let closed = false
    s.on('error', () => {})
    s.on('data', (b) => (got += b.toString('latin1')))
    s.on('close', () => (closed = true))
    s.on('connect', () => s.write('POST /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{'))
    return { socket: s, received: () => got, closed: () => closed }
  })
}
