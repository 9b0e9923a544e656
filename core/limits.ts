/**
 * What one client may cost the daemon: deadlines on headers and bodies, and caps on open
 * connections, so slow or numerous clients cannot hold descriptors until spawns and accepts fail.
 *
 *   headers_timeout_ms   10 s    the whole header block (node checks these two every 30 s)
 *   request_timeout_ms   300 s   the whole request, body included (a 25 MiB upload at 85 KB/s)
 *   body_idle_ms         15 s    a body that sends nothing for this long gets 408
 *   json_body_ms         30 s    a JSON body (≤ 1 MiB) must arrive within this
 *   max_connections      half the open-file limit, at most 4096
 *   max_unauthenticated  a quarter of max_connections: connections that have not yet made an
 *                        authenticated request (pairing, pages, refused credentials)
 *
 * Connections past a cap get a one-line 503 and are closed.
 */
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { Server as TlsServer } from 'node:tls'
import type { Duplex } from 'node:stream'
import type { ConsolaInstance } from 'consola'

export interface ServerLimits {
  headers_timeout_ms: number
  request_timeout_ms: number
  body_idle_ms: number
  json_body_ms: number
  max_connections: number
  max_unauthenticated: number
}

/** The soft open-file limit of this process (Linux), or null where it cannot be read. */
export function openFileLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    return m ? Number(m[1]) : null
  } catch {
    return null
  }
}

/** Defaults, sized from the descriptor limit so connections leave room for files and children. */
export function defaultLimits(nofile = openFileLimit(), env: NodeJS.ProcessEnv = process.env): ServerLimits {
  const fromEnv = (name: string) => {
    const n = Number(env[name])
    return Number.isInteger(n) && n > 0 ? n : undefined
  }
  const maxConnections = fromEnv('BRIDGE_MAX_CONNECTIONS') ?? Math.max(16, Math.min(4096, Math.floor((nofile ?? 8192) / 2)))
  return {
    headers_timeout_ms: 10_000,
    request_timeout_ms: 300_000,
    body_idle_ms: 15_000,
    json_body_ms: 30_000,
    max_connections: maxConnections,
    max_unauthenticated: fromEnv('BRIDGE_MAX_UNAUTHENTICATED') ?? Math.max(8, Math.floor(maxConnections / 4)),
  }
}

/** A plain-text answer written straight to a socket that gets no HTTP handler, then closed. */
export function refuse(socket: Duplex, status: string, body: string, headers = ''): void {
  socket.on('error', () => {})
  socket.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}connection: close\r\n\r\n${body}`)
}

/**
 * Applies the deadlines and connection caps to a node server. Every connection starts as
 * unauthenticated; `authenticated(socket)` moves it to the general pool once a request on it
 * carried a valid device bearer or the admin token.
 */
export function guardServer(server: Server, limits: ServerLimits, log: ConsolaInstance) {
  server.headersTimeout = limits.headers_timeout_ms
  server.requestTimeout = limits.request_timeout_ms
  const all = new Set<Socket>()
  const unauthenticated = new Set<Socket>()
  let refused = 0
  let lastWarn = 0
  // Runs before http's own listener, so a refused socket never reaches a handler. Over TLS the
  // socket requests arrive on (and `authenticated` is given) is the one after the handshake.
  server.prependListener(server instanceof TlsServer ? 'secureConnection' : 'connection', (socket: Socket) => {
    socket.on('error', () => {})
    const full = all.size >= limits.max_connections ? 'connections' : unauthenticated.size >= limits.max_unauthenticated ? 'unauthenticated connections' : null
    if (full) {
      refused++
      // One warning a minute, with the count, however many are refused.
      if (Date.now() - lastWarn > 60_000) {
        lastWarn = Date.now()
        log.warn(`refusing connections: ${full} at the cap (${full === 'connections' ? limits.max_connections : limits.max_unauthenticated}); ${refused} refused so far`)
      }
      refuse(socket, '503 Service Unavailable', `too many ${full}; retry later\n`, 'retry-after: 5\r\n')
      socket.destroySoon()
      return
    }
    all.add(socket)
    unauthenticated.add(socket)
    socket.once('close', () => {
      all.delete(socket)
      unauthenticated.delete(socket)
    })
  })
  // Past the descriptor limit accept() fails; without a listener that 'error' ends the daemon.
  // Attached once listening: a failed listen (EADDRINUSE) is the caller's one-line error.
  server.once('listening', () => server.on('error', (err: NodeJS.ErrnoException) => log.warn(`listener: ${err.code ?? err.message}`)))
  return {
    authenticated(socket: Socket | undefined) {
      if (socket) unauthenticated.delete(socket)
    },
    counts: () => ({ connections: all.size, unauthenticated: unauthenticated.size }),
  }
}

export type ServerGuard = ReturnType<typeof guardServer>
