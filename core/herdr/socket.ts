import { createConnection, type Socket } from 'node:net'

/** A herdr error kept as herdr sent it, or a transport failure (`code: 'unreachable' | 'timeout'`). */
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

/**
 * One request on its own connection, as herdr requires: it reads the first line, replies once
 * and closes. A socket that does not answer within the deadline is abandoned.
 */
export function herdrRequest<T = any>(socketPath: string, method: string, params: object, opts: { timeoutMs?: number; session?: string } = {}): Promise<T> {
  const id = `bridge-req-${++nextId}`
  const session = opts.session ?? 'default'
  const timeoutMs = opts.timeoutMs ?? 15_000
  return new Promise<T>((resolve, reject) => {
    let buf = ''
    let settled = false
    const sock = createConnection(socketPath)
    const done = (err: Error | null, value?: T) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      sock.destroy()
      if (err) reject(err)
      else resolve(value as T)
    }
    const timer = setTimeout(() => done(new HerdrError('timeout', `no reply to ${method} within ${timeoutMs / 1000} s`, session)), timeoutMs)
    sock.setEncoding('utf8')
    sock.on('connect', () => sock.write(JSON.stringify({ id, method, params }) + '\n'))
    sock.on('data', (chunk: string) => {
      buf += chunk
      if (buf.length > MAX_LINE) return done(new HerdrError('unreachable', `reply to ${method} exceeds ${MAX_LINE} bytes`, session))
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        if (!line.trim()) continue
        let msg: any
        try {
          msg = JSON.parse(line)
        } catch {
          return done(new HerdrError('unreachable', `unparsable reply to ${method}`, session))
        }
        if (msg.event !== undefined || (msg.id !== id && msg.id !== '')) continue
        if (msg.error) return done(new HerdrError(String(msg.error.code ?? 'error'), String(msg.error.message ?? ''), session))
        return done(null, msg.result as T)
      }
    })
    sock.on('error', (err: NodeJS.ErrnoException) => done(new HerdrError('unreachable', `cannot reach herdr at ${socketPath}: ${err.code ?? err.message}`, session)))
    sock.on('close', () => done(new HerdrError('unreachable', `herdr closed the connection without replying to ${method}`, session)))
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
  handlers: { onAck?: () => void; onEvent: (event: string, data: any) => void; onClose: (reason: string) => void },
  opts: { ackTimeoutMs?: number; session?: string } = {},
): Subscription {
  const id = `bridge-events-${++nextId}`
  let buf = ''
  let acked = false
  let closed = false
  const sock: Socket = createConnection(socketPath)
  const finish = (reason: string) => {
    if (closed) return
    closed = true
    clearTimeout(timer)
    sock.destroy()
    handlers.onClose(reason)
  }
  const timer = setTimeout(() => finish('no subscription ack within 15 s'), opts.ackTimeoutMs ?? 15_000)
  sock.setEncoding('utf8')
  sock.on('connect', () => sock.write(JSON.stringify({ id, method: 'events.subscribe', params: { subscriptions } }) + '\n'))
  sock.on('data', (chunk: string) => {
    buf += chunk
    let nl: number
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl)
      buf = buf.slice(nl + 1)
      if (!line.trim() || closed) continue
      let msg: any
      try {
        msg = JSON.parse(line)
      } catch {
        continue
      }
      if (!acked) {
        if (msg.error) return finish(`subscribe refused: ${msg.error.code}: ${msg.error.message}`)
        if (msg.result?.type === 'subscription_started') {
          acked = true
          clearTimeout(timer)
          handlers.onAck?.()
        }
        continue
      }
      if (typeof msg.event === 'string') handlers.onEvent(msg.event, msg.data ?? {})
    }
  })
  sock.on('error', (err: NodeJS.ErrnoException) => finish(`socket error: ${err.code ?? err.message}`))
  sock.on('close', () => finish('socket closed'))
  return { close: () => finish('closed by bridge') }
}
