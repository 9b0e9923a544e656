// Test helper: runs the herdr simulator as a child process in a temp HOME and talks to it the
// way herdr clients do (one request per connection). Tear-down kills only what it started.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'
import { validateAgainstSchema as validate, type SchemaKind } from './herdr-sim/schema.ts'
// The herdr a run plays (HERDR_SIM_MODE): tests that assert version-specific behaviour read it.
export { simProfile } from './herdr-sim/mode.ts'

const here = path.dirname(fileURLToPath(import.meta.url))
const MAIN = path.join(here, 'herdr-sim', 'main.ts')
export const HERDR_BIN = path.join(here, 'bin', 'herdr')
const TSX = import.meta.resolve('tsx')

export type { SchemaKind }

/** Validates one message against a sub-schema of the published herdr schema (ajv, draft 2020-12). */
export function validateAgainstSchema(kind: SchemaKind, obj: unknown): { valid: boolean; errors: string } {
  return validate(kind, obj)
}

/** Throws with the ajv errors when `obj` does not validate. */
export function assertSchema(kind: SchemaKind, obj: unknown): void {
  const r = validate(kind, obj)
  if (!r.valid) throw new Error(`${kind} failed schema validation: ${r.errors}\n${JSON.stringify(obj).slice(0, 2000)}`)
}

/** A pushed line is either a lifecycle envelope or a dotted per-pane envelope. */
export function assertPushedEvent(line: { event?: unknown }): void {
  assertSchema(typeof line.event === 'string' && line.event.includes('.') ? 'subscription_event' : 'event', line)
}

export interface StartSimOptions {
  /** Session names; `default` is the default session. Default: ['default']. */
  sessions?: string[]
  /** Temp HOME; sockets live under <home>/.config/herdr. */
  home: string
  /** Enables the `sim.*` control methods. */
  testMode?: boolean
  /** Default cwd for new panes (default: home). */
  cwd?: string
  /** Create one workspace per session at start (its events stay in the ring buffer). */
  initialWorkspace?: boolean
  /** Kinds with a fake-agent shim on the panes' PATH (default claude and pi). */
  agentKinds?: string[]
  /** Pane area, default 120x40. */
  size?: { cols: number; rows: number }
  /** Check every non-`sim.*` reply against the schema and throw on mismatch (default true). */
  validate?: boolean
  /** Extra environment for the simulator (and so for every pane). */
  env?: Record<string, string>
}

/**
 * A JSON value from the simulator: a method's result or a pushed event line. Its shape depends on the
 * method (herdr's schema checks it when `validate` is on) and tests across the suite read its fields
 * directly, so it is left untyped here rather than cast at each of several hundred call sites.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- per-method herdr JSON, schema-checked at runtime
export type SimJson = any

export type Reply = { id: string; result?: SimJson; error?: { code: string; message: string } }

export class SimCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly reply: Reply,
  ) {
    super(`${code}: ${message}`)
  }
}

export interface Subscription {
  /** The first line: the `subscription_started` ack, or the error that replaced it. */
  ack: Reply
  /** Every pushed line received so far, in order. */
  events: SimJson[]
  /** Resolves with the first received event (past or future) matching `pred` not yet taken by next(). */
  next(pred?: (e: SimJson) => boolean, timeoutMs?: number): Promise<SimJson>
  /** Resolves when the server closed the stream. */
  closed: Promise<void>
  /** Ends the subscription the way herdr expects: by hanging up. */
  close(): void
}

export interface Sim {
  home: string
  configDir: string
  /** Directory with the `claude`/`pi` shims (fake agents) and a `herdr` link; put it on PATH to "install" them. */
  shimDir: string
  herdrBin: string
  sessions: string[]
  pid(): number | undefined
  socketPath(session?: string): string
  /** Env a client (bridge, CLI) needs to find this simulator like it finds herdr. */
  clientEnv(): Record<string, string>
  /** Raw reply of one request on its own connection. */
  call(method: string, params?: unknown, session?: string, opts?: { timeoutMs?: number }): Promise<Reply>
  /** `result` of a request; throws SimCallError on an error reply. */
  request(method: string, params?: unknown, session?: string, opts?: { timeoutMs?: number }): Promise<SimJson>
  subscribe(subscriptions: unknown[], session?: string, id?: string): Promise<Subscription>
  /** Closes one session's socket in place ("herdr went away"); `fresh` also kills its panes. */
  stopSession(session?: string, opts?: { fresh?: boolean }): Promise<void>
  /** Runs a `sim.*` method with the socket closed (after stopSession): a change no client sees happen. */
  direct(method: string, params: Record<string, unknown>, session?: string): Promise<void>
  /** Re-listens on the same socket path. */
  startSession(session?: string): Promise<void>
  /** Stops the whole simulator process and starts a new one on the same sockets (fresh state). */
  restart(): Promise<void>
  /** Graceful stop: SIGTERM, wait, then make sure every pane process group is gone. */
  stop(): Promise<void>
  /** Crash: SIGKILL the simulator (sockets stay behind as stale files), then reap pane groups. */
  kill(): Promise<void>
}

export async function startSim(opts: StartSimOptions): Promise<Sim> {
  const home = path.resolve(opts.home)
  const configDir = path.join(home, '.config', 'herdr')
  const sessions = opts.sessions?.length ? [...new Set(opts.sessions)] : ['default']
  const validateReplies = opts.validate !== false
  fs.mkdirSync(configDir, { recursive: true })

  let child: ChildProcess | undefined
  let shimDir = path.join(configDir, 'sim-bin')
  const knownPanePids = new Set<number>()
  const controlWaiters = new Map<number, (line: string) => void>()
  let controlSeq = 0

  const socketPath = (session = 'default'): string => (session === 'default' ? path.join(configDir, 'herdr.sock') : path.join(configDir, 'sessions', session, 'herdr.sock'))

  async function spawnSim(): Promise<void> {
    const args = ['--import', TSX, MAIN, '--config-dir', configDir, '--stdin-control', '--cwd', opts.cwd ?? home]
    for (const s of sessions) args.push('--session', s)
    if (opts.testMode) args.push('--test-mode')
    if (opts.initialWorkspace) args.push('--initial-workspace')
    if (opts.agentKinds) args.push('--agent-kinds', opts.agentKinds.join(','))
    if (opts.size) args.push('--size', `${opts.size.cols}x${opts.size.rows}`)
    const proc = spawn(process.execPath, args, {
      env: { ...process.env, ...opts.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    child = proc
    // ajv compiles the big response schemas lazily; do it while the child boots on another core.
    if (validateReplies) for (const kind of ['success_response', 'error_response', 'event', 'subscription_event'] as const) validate(kind, {})
    let stderr = ''
    proc.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString()
      if (process.env.SIM_DEBUG) process.stderr.write(d)
    })
    const lines = readline.createInterface({ input: proc.stdout! })
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`simulator not ready after 30 s\n${stderr}`)), 30000)
      proc.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`simulator exited with ${code} before ready\n${stderr}`))
      })
      lines.on('line', (line) => {
        if (line.startsWith('ready ')) {
          clearTimeout(timer)
          const info = JSON.parse(line.slice(6)) as { shimDir: string }
          shimDir = info.shimDir
          resolve()
        } else if (line.startsWith('ok ') || line.startsWith('err ')) {
          const body = JSON.parse(line.slice(line.indexOf(' ') + 1)) as { seq?: number }
          if (body.seq !== undefined) controlWaiters.get(body.seq)?.(line)
        }
      })
    })
  }

  async function control(cmd: Record<string, unknown>): Promise<void> {
    if (!child?.stdin) throw new Error('simulator is not running')
    const seq = ++controlSeq
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`simulator control ${JSON.stringify(cmd)} timed out`)), 20000)
      controlWaiters.set(seq, (l) => {
        clearTimeout(timer)
        resolve(l)
      })
      child!.stdin!.write(`${JSON.stringify({ ...cmd, seq })}\n`)
    })
    controlWaiters.delete(seq)
    if (line.startsWith('err ')) throw new Error(`simulator control failed: ${line}`)
  }

  function connect(session: string): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const sock = net.connect(socketPath(session))
      sock.once('connect', () => resolve(sock))
      sock.once('error', reject)
    })
  }

  let reqCounter = 0
  async function call(method: string, params: unknown = {}, session = 'default', o: { timeoutMs?: number } = {}): Promise<Reply> {
    const sock = await connect(session)
    const id = `t-${++reqCounter}`
    const reply = await new Promise<Reply>((resolve, reject) => {
      let buf = ''
      const timer = setTimeout(() => {
        sock.destroy()
        reject(new Error(`${method} got no reply within ${o.timeoutMs ?? 20000} ms`))
      }, o.timeoutMs ?? 20000)
      sock.on('data', (d) => {
        buf += d.toString('utf8')
        const nl = buf.indexOf('\n')
        if (nl >= 0) {
          clearTimeout(timer)
          sock.destroy()
          resolve(JSON.parse(buf.slice(0, nl)) as Reply)
        }
      })
      sock.on('close', () => {
        clearTimeout(timer)
        reject(new Error(`${method}: connection closed without a reply`))
      })
      sock.on('error', () => {})
      sock.write(`${JSON.stringify({ id, method, params })}\n`)
    })
    if (validateReplies && !method.startsWith('sim.')) assertSchema(reply.error ? 'error_response' : 'success_response', reply)
    return reply
  }

  async function request(method: string, params: unknown = {}, session = 'default', o: { timeoutMs?: number } = {}): Promise<SimJson> {
    const reply = await call(method, params, session, o)
    if (reply.error) throw new SimCallError(reply.error.code, reply.error.message, reply)
    if (method === 'sim.pids') for (const p of reply.result.pids as number[]) knownPanePids.add(p)
    return reply.result
  }

  async function subscribe(subscriptions: unknown[], session = 'default', id = `sub-${++reqCounter}`): Promise<Subscription> {
    const sock = await connect(session)
    const events: SimJson[] = []
    const taken = new Set<number>()
    const waiters: Array<() => void> = []
    let ackResolve!: (r: Reply) => void
    const ackPromise = new Promise<Reply>((r) => (ackResolve = r))
    let gotAck = false
    let buf = ''
    let closedResolve!: () => void
    const closed = new Promise<void>((r) => (closedResolve = r))
    sock.on('data', (d) => {
      buf += d.toString('utf8')
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = JSON.parse(buf.slice(0, nl))
        buf = buf.slice(nl + 1)
        if (!gotAck) {
          gotAck = true
          if (validateReplies) assertSchema(line.error ? 'error_response' : 'success_response', line)
          ackResolve(line)
          continue
        }
        if (validateReplies) assertPushedEvent(line)
        events.push(line)
        for (const w of waiters.splice(0)) w()
      }
    })
    sock.on('close', () => {
      closedResolve()
      for (const w of waiters.splice(0)) w()
    })
    sock.on('error', () => {})
    sock.write(`${JSON.stringify({ id, method: 'events.subscribe', params: { subscriptions } })}\n`)
    const ack = await ackPromise
    return {
      ack,
      events,
      closed,
      close: () => sock.destroy(),
      async next(pred = () => true, timeoutMs = 15000) {
        const deadline = Date.now() + timeoutMs
        for (;;) {
          const idx = events.findIndex((e, i) => !taken.has(i) && pred(e))
          if (idx >= 0) {
            taken.add(idx)
            return events[idx]
          }
          if (sock.destroyed && buf === '') throw new Error('subscription closed while waiting for an event')
          const left = deadline - Date.now()
          if (left <= 0) throw new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events).slice(0, 1500)}`)
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, left)
            waiters.push(() => {
              clearTimeout(t)
              resolve()
            })
          })
        }
      },
    }
  }

  async function collectPids(): Promise<void> {
    if (!opts.testMode || !child || child.exitCode !== null) return
    for (const s of sessions) {
      try {
        await request('sim.pids', {}, s, { timeoutMs: 2000 })
      } catch {
        // session down or stopping; its panes were already handled by the simulator
      }
    }
  }

  /**
   * Whether `pid` is still one of this simulator's pane processes: its environment names this
   * simulator's socket. Pane processes that exited long ago leave their numbers free, and on a
   * busy machine (pid_max is often 32768) another test file's shell may hold one by now, as the
   * leader of its own group: killing that group would close another file's pane.
   */
  function ownPane(pid: number): boolean {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`HERDR_SOCKET_PATH=${configDir}${path.sep}`)
    } catch {
      return false
    }
  }

  function reapPanes(): void {
    for (const pid of knownPanePids) {
      if (!ownPane(pid)) continue
      try {
        process.kill(-pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    knownPanePids.clear()
  }

  async function waitExit(proc: ChildProcess, ms: number): Promise<boolean> {
    if (proc.exitCode !== null || proc.signalCode !== null) return true
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms)
      proc.once('exit', () => {
        clearTimeout(t)
        resolve(true)
      })
    })
  }

  async function stop(): Promise<void> {
    const proc = child
    if (!proc) return
    await collectPids()
    child = undefined
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM')
      if (!(await waitExit(proc, 10000))) {
        proc.kill('SIGKILL')
        await waitExit(proc, 5000)
      }
    }
    reapPanes()
  }

  async function kill(): Promise<void> {
    const proc = child
    if (!proc) return
    await collectPids()
    child = undefined
    proc.kill('SIGKILL')
    await waitExit(proc, 5000)
    reapPanes()
  }

  await spawnSim()

  return {
    home,
    configDir,
    get shimDir() {
      return shimDir
    },
    herdrBin: HERDR_BIN,
    sessions,
    pid: () => child?.pid,
    socketPath,
    clientEnv: () => ({
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      PATH: `${shimDir}${path.delimiter}${process.env.PATH ?? ''}`,
    }),
    call,
    request,
    subscribe,
    stopSession: (session = 'default', o = {}) => control({ cmd: 'stop', session, fresh: o.fresh === true }),
    startSession: (session = 'default') => control({ cmd: 'start', session }),
    direct: (method, params, session = 'default') => control({ cmd: 'call', session, method, params }),
    async restart() {
      await stop()
      await spawnSim()
    },
    stop,
    kill,
  }
}
