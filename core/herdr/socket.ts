import { createConnection, type Socket } from 'node:net'

/** A herdr error kept as herdr sent it, or a transport failure (`code: 'unreachable' | 'timeout'`). */
/**
 * What a client is told when herdr refuses a prompt with `agent_blocked` (herdr 0.8.2 and later:
 * the agent waits at an approval or question dialog, and nothing was typed).
 */
export const AGENT_BLOCKED = 'the agent is waiting at an approval or question dialog, so nothing was typed; answer it first (POST /approve or /send)'

export class HerdrError extends Error {
  constructor(
    public code: string,
    message: string,
    public session = 'default',
  ) {
    super(message)
  }
  get notFound(): boolean {
    return this.code.endsWith('_not_found')
  }
  get transport(): boolean {
    return this.code === 'unreachable' || this.code === 'timeout'
  }
}

let nextId = 0
const MAX_LINE = 64 * 1024 * 1024
/** Events are small; a line this long is a broken or hostile peer. */
const MAX_EVENT_LINE = 16 * 1024 * 1024

/**
 * Feeds a byte stream, calls `onLine` per complete line (return false to stop), and `onOverflow`
 * once a partial line passes `max` characters. Only new data is searched for the newline, so a
 * long line arriving in many chunks costs linear time, not a rescan of the buffer per chunk.
 */
function lineSplitter(max: number, onLine: (line: string) => boolean | void, onOverflow: () => void): (chunk: string) => void {
  let parts: string[] = []
  let size = 0
  return (chunk) => {
    let at = 0
    for (;;) {
      const nl = chunk.indexOf('\n', at)
      if (nl < 0) {
        if (at < chunk.length) {
          parts.push(at ? chunk.slice(at) : chunk)
          size += chunk.length - at
        }
        if (size > max) onOverflow()
        return
      }
      const tail = chunk.slice(at, nl)
      const line = parts.length ? parts.join('') + tail : tail
      parts = []
      size = 0
      at = nl + 1
      if (onLine(line) === false) return
    }
  }
}

/** A line herdr writes: a reply (`id` with `result` or `error`) or an event (`event`, `data`). */
interface HerdrLine {
  id?: unknown
  result?: unknown
  error?: { code?: string; message?: string }
  event?: unknown
  data?: unknown
}

/** Parsed JSON that is not an object (a bare number, string, null) carries nothing herdr sends. */
function asLine(msg: unknown): HerdrLine | undefined {
  return typeof msg === 'object' && msg !== null ? (msg as HerdrLine) : undefined
}

/** What a herdr connection reports: each non-blank reply line, parsed, and how it ended. */
interface ExchangeHandlers {
  message(msg: HerdrLine | undefined): void
  /** A line that is not JSON; ignored when absent. */
  unparsable?(): void
  overflow(): void
  error(err: NodeJS.ErrnoException): void
  close(): void
}

/**
 * One connection to a herdr socket: writes `request` as its only line, then hands every reply
 * line to the handlers until the socket is destroyed (which the caller does when it is done).
 */
function exchange(socketPath: string, request: object, maxLine: number, on: ExchangeHandlers): Socket {
  const sock = createConnection(socketPath)
  sock.setEncoding('utf8')
  sock.on('connect', () => sock.write(JSON.stringify(request) + '\n'))
  const feed = lineSplitter(
    maxLine,
    (line) => {
      if (sock.destroyed) return false
      if (!line.trim()) return
      let msg: unknown
      try {
        msg = JSON.parse(line)
      } catch {
        return on.unparsable?.()
      }
      on.message(asLine(msg))
    },
    () => on.overflow(),
  )
  sock.on('data', (chunk: string) => {
    if (!sock.destroyed) feed(chunk)
  })
  sock.on('error', (err: NodeJS.ErrnoException) => on.error(err))
  sock.on('close', () => on.close())
  return sock
}

/**
 * One request on its own connection, as herdr requires: it reads the first line, replies once
 * and closes. A socket that does not answer within the deadline is abandoned.
 */
export function herdrRequest<T = unknown>(socketPath: string, method: string, params: object, opts: { timeoutMs?: number; session?: string } = {}): Promise<T> {
  const id = `bridge-req-${++nextId}`
  const session = opts.session ?? 'default'
  const timeoutMs = opts.timeoutMs ?? 15_000
  return new Promise<T>((resolve, reject) => {
    let settled = false
    const done = (err: Error | null, value?: T) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      sock.destroy()
      if (err) reject(err)
      else resolve(value as T)
    }
    const unreachable = (message: string) => done(new HerdrError('unreachable', message, session))
    const timer = setTimeout(() => done(new HerdrError('timeout', `no reply to ${method} within ${timeoutMs / 1000} s`, session)), timeoutMs)
    const sock = exchange(socketPath, { id, method, params }, MAX_LINE, {
      message(msg) {
        if (msg?.event !== undefined || (msg?.id !== id && msg?.id !== '')) return
        if (msg.error) return done(new HerdrError(String(msg.error.code ?? 'error'), String(msg.error.message ?? ''), session))
        done(null, msg.result as T)
      },
      unparsable: () => unreachable(`unparsable reply to ${method}`),
      overflow: () => unreachable(`reply to ${method} exceeds ${MAX_LINE} bytes`),
      error: (err) => unreachable(`cannot reach herdr at ${socketPath}: ${err.code ?? err.message}`),
      close: () => unreachable(`herdr closed the connection without replying to ${method}`),
    })
  })
}

export interface Subscription {
  close(): void
}

/**
 * A long-lived `events.subscribe` connection. Nothing is written after the request line: herdr
 * ends a subscription on any client byte or on a half-close.
 */
export function herdrSubscribe(
  socketPath: string,
  subscriptions: object[],
  handlers: { onAck?: () => void; onEvent: (event: string, data: unknown) => void; onClose: (reason: string) => void },
  opts: { ackTimeoutMs?: number; session?: string } = {},
): Subscription {
  const id = `bridge-events-${++nextId}`
  let acked = false
  let closed = false
  const finish = (reason: string) => {
    if (closed) return
    closed = true
    clearTimeout(timer)
    sock.destroy()
    handlers.onClose(reason)
  }
  const ackMs = opts.ackTimeoutMs ?? 15_000
  const timer = setTimeout(() => finish(`no subscription ack within ${ackMs / 1000} s`), ackMs)
  const sock = exchange(socketPath, { id, method: 'events.subscribe', params: { subscriptions } }, MAX_EVENT_LINE, {
    message(msg) {
      if (!acked) {
        if (msg?.error) return finish(`subscribe refused: ${msg.error.code}: ${msg.error.message}`)
        if ((msg?.result as { type?: unknown } | null | undefined)?.type === 'subscription_started') {
          acked = true
          clearTimeout(timer)
          handlers.onAck?.()
        }
        return
      }
      if (typeof msg?.event === 'string') handlers.onEvent(msg.event, msg.data ?? {})
    },
    overflow: () => finish(`event line exceeds ${MAX_EVENT_LINE} bytes`),
    error: (err) => finish(`socket error: ${err.code ?? err.message}`),
    close: () => finish('socket closed'),
  })
  return { close: () => finish('closed by bridge') }
}
