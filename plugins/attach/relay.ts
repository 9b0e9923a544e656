import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { spawnChild, spawnFailureText } from '../../lib/exec.ts'
import type { Peer } from 'crossws'
import type { PluginContext } from '../../core/plugin.ts'
import type { PaneRef } from '../../core/herdr/index.ts'
import { isDefaultSession } from '../../core/herdr/index.ts'
import { closeFor, closeReason, historyFrame, inputLine, LineSplitter, parseCliBytes, parseResize, releaseLine, resizeLine, HISTORY_LINES, type Mode } from './frames.ts'

/**
 * One /attach connection: a `herdr terminal session control|observe` child whose JSON lines
 * are relayed to the socket, and the socket's input relayed to the child's stdin. Either end
 * closing ends the other; the child is always killed and waited for.
 */

export interface RelayOptions {
  ref: PaneRef
  mode: Mode
  cols: number
  rows: number
  takeover: boolean
  /** Send the pane's scrollback once before the first repaint (plain panes only). */
  seedHistory: boolean
  limits?: RelayLimits
}

export interface RelayLimits {
  /** The CLI's output is paused while this many bytes are queued for the client. */
  high_water_bytes?: number
  /** A client that stays above the mark this long is dropped (close 1013). */
  stuck_ms?: number
}

const HIGH_WATER = 1 << 20
const STUCK_MS = 30_000
const KILL_GRACE_MS = 1500
const DRAIN_POLL_MS = 2

export interface Relay {
  pid: number | undefined
  input(data: Uint8Array | string, isText: boolean): void
  /** The socket closed: end the child. */
  end(): void
  exited: Promise<void>
}

export function herdrArgs(o: Pick<RelayOptions, 'ref' | 'mode' | 'cols' | 'rows' | 'takeover'>): string[] {
  const args = isDefaultSession(o.ref.session) ? [] : ['--session', o.ref.session]
  args.push('terminal', 'session', o.mode, o.ref.id)
  if (o.mode === 'control' && o.takeover) args.push('--takeover')
  args.push('--cols', String(o.cols), '--rows', String(o.rows))
  return args
}

/** The env herdr's CLI resolves sockets from; empty overrides are removed, not passed as ''. */
export function herdrEnv(env: NodeJS.ProcessEnv, session: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env }
  for (const k of ['HERDR_SOCKET_PATH', 'HERDR_CLIENT_SOCKET_PATH', 'HERDR_SESSION']) if (!out[k]) delete out[k]
  // An explicit --session wins anyway; for the default session a stray HERDR_SESSION must not.
  if (isDefaultSession(session)) delete out.HERDR_SESSION
  return out
}

export function startRelay(ctx: PluginContext, peer: Peer, o: RelayOptions): Relay {
  let socketOpen = true
  let closedReason: string | null | undefined
  let stderr = ''
  let seedDone = !o.seedHistory
  const held: Buffer[] = []

  let childAlive = true
  let resolveExited = () => {}
  const exited = new Promise<void>((resolve) => (resolveExited = resolve))
  const child = spawnChild(ctx.config.herdr_bin, herdrArgs(o), { env: herdrEnv(ctx.env, o.ref.session), stdio: ['pipe', 'pipe', 'pipe'] }, (err) => {
    childAlive = false
    resolveExited()
    closeSocket(1011, spawnFailureText('herdr CLI', err))
  }) as ChildProcessWithoutNullStreams
  child.once('close', () => resolveExited())

  const closeSocket = (code: number, reason: string) => {
    if (!socketOpen) return
    socketOpen = false
    try {
      peer.close(code, closeReason(reason))
    } catch {
      // already closing
    }
  }

  // Backpressure: stop reading the child while the client has a megabyte unread.
  const highWater = o.limits?.high_water_bytes ?? HIGH_WATER
  const stuckMs = o.limits?.stuck_ms ?? STUCK_MS
  let stuckSince = 0
  let drainTimer: NodeJS.Timeout | undefined
  const buffered = () => (peer.websocket as { bufferedAmount?: number }).bufferedAmount ?? 0
  const send = (bytes: Buffer) => {
    if (!socketOpen) return
    peer.send(bytes, { compress: false })
    if (buffered() > highWater && !drainTimer) {
      child.stdout.pause()
      stuckSince = Date.now()
      drainTimer = setInterval(() => {
        if (!socketOpen) return clearInterval(drainTimer)
        if (buffered() <= highWater / 4) {
          clearInterval(drainTimer)
          drainTimer = undefined
          child.stdout.resume()
        } else if (Date.now() - stuckSince > stuckMs) {
          clearInterval(drainTimer)
          closeSocket(1013, 'client is not reading the terminal stream')
          end()
        }
        // Looked at often: a socket drains a megabyte in a few ms, and every ms paused here is
        // throughput lost.
      }, DRAIN_POLL_MS)
    }
  }

  // Past the descriptor limit the child has no pipes; the 'error' listener closes the socket.
  if (!child.stdout || !child.stdin || !child.stderr) return { pid: undefined, exited, end: () => void (socketOpen = false), input: () => {} }

  // A read error on the CLI's pipes (EIO) ends this stream, never the daemon.
  const broken = (err: NodeJS.ErrnoException) => {
    closeSocket(1011, `terminal stream failed: ${err.code ?? err.message}`)
    end()
  }
  child.stdout.on('error', broken)
  child.stderr.on('error', broken)

  const onLine = (line: Buffer) => {
    const msg = parseCliBytes(line)
    if (!msg) return
    if (msg.type === 'closed') {
      closedReason = msg.reason
      return
    }
    if (seedDone) send(msg.bytes)
    else held.push(msg.bytes)
  }
  // Split as bytes: a frame's base64 is sliced out of its line, never decoded to a string whole.
  const lines = new LineSplitter()
  child.stdout.on('data', (chunk: Buffer) => lines.push(chunk, onLine))
  child.stdout.on('end', () => lines.end(onLine))
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 4096) stderr += d.toString('utf8')
  })
  child.stdin.on('error', () => {})

  child.once('close', (code) => {
    childAlive = false
    if (drainTimer) clearInterval(drainTimer)
    // Frames are relayed before the exit is: stdout has ended, and its last line was taken, by 'close'.
    if (closedReason !== undefined) {
      const v = closeFor(closedReason)
      return closeSocket(v.code, v.reason)
    }
    const why = stderr
      .split('\n')
      .find((l) => l.trim())
      ?.trim()
    closeSocket(code === 0 ? 1000 : 1011, code === 0 ? 'terminal stream ended' : why || `herdr CLI exited with ${code}`)
  })

  if (o.seedHistory) {
    void readHistory(ctx, o.ref)
      .catch(() => null)
      .then((seed) => {
        if (seed) send(seed)
        seedDone = true
        for (const b of held.splice(0)) send(b)
      })
  }

  const write = (line: string) => {
    if (childAlive && child.stdin.writable) child.stdin.write(line)
  }

  const end = () => {
    socketOpen = false
    if (!childAlive) return
    // Release first (herdr detaches cleanly), then make sure the process is gone.
    write(releaseLine())
    child.stdin.end()
    const term = setTimeout(() => childAlive && child.kill('SIGTERM'), KILL_GRACE_MS)
    const kill = setTimeout(() => childAlive && child.kill('SIGKILL'), KILL_GRACE_MS * 3)
    void exited.then(() => (clearTimeout(term), clearTimeout(kill)))
  }

  return {
    pid: child.pid,
    exited,
    end,
    input(data, isText) {
      if (isText) {
        // Text frames are control; the only one acted on is resize, and never for an observer.
        const size = parseResize(typeof data === 'string' ? data : Buffer.from(data).toString('utf8'))
        if (size && o.mode === 'control') write(resizeLine(size.cols, size.rows))
        return
      }
      if (o.mode !== 'control' || data.length === 0) return
      write(inputLine(data as Uint8Array))
    },
  }
}

/**
 * The pane's scrollback as one frame: recent text, unwrapped, ANSI kept, CRLF. Sent only when
 * there is history beyond the visible screen (an alternate-screen program has none).
 */
async function readHistory(ctx: PluginContext, ref: PaneRef): Promise<Buffer | null> {
  const read = (source: string, lines?: number) =>
    ctx.herdr
      .call<{ read?: { text?: string } }>(ref.session, 'pane.read', { pane_id: ref.id, source, format: 'ansi', ...(lines ? { lines } : {}) }, { timeoutMs: 5000 })
      .then((r) => r?.read?.text ?? '')
  const [recent, visible] = await Promise.all([read('recent_unwrapped', HISTORY_LINES), read('visible')])
  const count = (t: string) => t.replace(/\n+$/, '').split('\n').length
  if (count(recent) <= count(visible)) return null
  return historyFrame(recent)
}
