import { afterEach, describe, expect, test } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { connect, createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT } from '../harness/bridge.ts'

/**
 * The daemon under a low descriptor limit (`prlimit --nofile`), flooded by unauthenticated
 * clients that never finish their /pair body. Before the fix the flood ran the process out of
 * descriptors and the next failed accept or spawn was an unhandled 'error' that ended it.
 */

const BIN = join(REPO_ROOT, 'cli/bin.mjs')
const NOFILE = 96

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

interface Daemon {
  proc: ChildProcess
  base: string
  port: number
  token: string
  dir: string
  output: () => string
  exited: () => boolean
}

const started: Array<{ d: Daemon; dir: string }> = []
afterEach(async () => {
  for (const { d, dir } of started.splice(0)) {
    if (!d.exited()) {
      d.proc.kill('SIGTERM')
      await new Promise((r) => d.proc.once('exit', r))
    }
    rmSync(dir, { recursive: true, force: true })
  }
})

async function startDaemon(extraEnv: NodeJS.ProcessEnv = {}): Promise<Daemon> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-fds-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env = { ...process.env, BRIDGE_DIR: join(dir, 'data'), HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), HERDR_SOCKET_PATH: join(dir, 'none.sock'), ...extraEnv }
  const proc = spawn('prlimit', [`--nofile=${NOFILE}:${NOFILE}`, process.execPath, BIN, 'serve', '--addr', `127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let gone = false
  proc.on('exit', () => (gone = true))
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString()
      if (out.includes(`listening on ${base}`)) resolve()
    }
    proc.stdout!.on('data', onData)
    proc.stderr!.on('data', onData)
    proc.on('exit', (code) => reject(new Error(`daemon exited ${code}: ${out}`)))
  })
  const token = JSON.parse(readFileSync(join(dir, 'data', 'config.json'), 'utf8')).admin_token as string
  const d: Daemon = { proc, base, port, token, dir, output: () => out, exited: () => gone }
  started.push({ d, dir })
  return d
}

/** One keep-alive connection, authenticated before the flood, reused for every call. */
function keptClient(d: Daemon) {
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

/** Unauthenticated clients that send /pair headers and one byte of body, then nothing. */
async function flood(d: Daemon, n: number): Promise<Socket[]> {
  const socks: Socket[] = []
  for (let i = 0; i < n; i++) {
    const s = connect(d.port, '127.0.0.1')
    s.on('error', () => {})
    s.on('connect', () => s.write('POST /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{'))
    socks.push(s)
  }
  // Every connection has been accepted, refused or dropped by the time a fresh one is answered.
  await new Promise((r) => setTimeout(r, 1500))
  return socks
}

describe(`daemon at nofile=${NOFILE} under a flood of stalled /pair bodies`, () => {
  test('with caps above the descriptor limit: failed accepts and spawns are answered, the daemon lives', async () => {
    // Caps raised past the limit on purpose, so the flood does exhaust the descriptors.
    const d = await startDaemon({ BRIDGE_MAX_CONNECTIONS: '10000', BRIDGE_MAX_UNAUTHENTICATED: '10000' })
    const c = keptClient(d)
    expect((await c.call('/info')).status).toBe(200)
    const socks = await flood(d, 150)
    try {
      // /branch-delete runs git: its spawn fails with EMFILE and the answer says so in one line.
      const r = await c.call('/branch-delete', { repo_root: d.dir, branch: 'topic' })
      expect(d.exited()).toBe(false)
      expect(r.status).toBe(503)
      expect(JSON.parse(r.body).error).toMatch(/^[^\n]*out of file descriptors \(EMFILE\); retry later$/)
    } finally {
      for (const s of socks) s.destroy()
    }
    await new Promise((r) => setTimeout(r, 300))
    expect(d.exited()).toBe(false)
    expect(await c.call('/branch-delete', { repo_root: d.dir, branch: 'topic' })).toEqual({ status: 400, body: JSON.stringify({ error: `not a git repository: ${d.dir}` }) })
    c.close()
    expect(d.output()).not.toMatch(/Unhandled|uncaught|^\s+at /im)
  })

  test('with the default caps the flood is refused with 503 and spawns keep working', async () => {
    const d = await startDaemon()
    const c = keptClient(d)
    expect((await c.call('/info')).status).toBe(200)
    const socks = await flood(d, 150)
    try {
      const answers = await Promise.all(
        socks.slice(-20).map(
          (s) =>
            new Promise<string>((resolve) => {
              let got = ''
              s.on('data', (b) => (got += b))
              s.on('close', () => resolve(got))
              setTimeout(() => resolve(got), 2000)
            }),
        ),
      )
      // The last ones in are past the unauthenticated cap.
      expect(answers.every((a) => a.startsWith('HTTP/1.1 503 ') && a.endsWith('\r\n\r\ntoo many unauthenticated connections; retry later\n'))).toBe(true)
      expect(await c.call('/branch-delete', { repo_root: d.dir, branch: 'topic' })).toEqual({ status: 400, body: JSON.stringify({ error: `not a git repository: ${d.dir}` }) })
      expect(d.exited()).toBe(false)
    } finally {
      for (const s of socks) s.destroy()
    }
    c.close()
  })
})
