import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https'
import { X509Certificate, createPrivateKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { ConsolaInstance } from 'consola'
import type { BridgeConfig } from './config.ts'
import { splitAddr } from './config.ts'
import { guardServer, type ServerGuard, type ServerLimits } from './limits.ts'

/** A PEM certificate and its key, read and checked to make a pair. */
export interface TlsPair {
  key: Buffer
  cert: Buffer
  /** The certificate's SHA-256 fingerprint. */
  fingerprint: string
}

/** What serves the bound port once the bridge is set up: its app and its WebSocket upgrades. */
export interface ListenerHandlers {
  request: (req: IncomingMessage, res: ServerResponse) => void
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void
}

export interface Listener {
  /** Where it listens: the URL plugins describe the server with, and the address it took. */
  url: string
  host: string
  port: number
  /** Its connection caps (core/limits.ts): told when a connection authenticates. */
  guard: ServerGuard
  /** Hands the port to the bridge; requests and upgrades that arrived before wait for this. */
  serve(handlers: ListenerHandlers): void
  /** SHA-256 fingerprint of the certificate served now; null for plain HTTP. */
  tlsFingerprint(): string | null
  /** Serves new connections with another pair (SIGHUP); false for plain HTTP. */
  setTls(pair: TlsPair): boolean
  /** Stops accepting and ends the open connections. */
  close(): Promise<void>
}

/**
 * Binds `addr` (host:port), over HTTPS when a pair is given, with the deadlines and connection
 * caps of `limits`. The port is taken before the bridge is set up, so a busy one stops a start
 * before anything is written or started, with listen's own error (EADDRINUSE) and no window in
 * which another process could take it; what arrives meanwhile waits for `serve`.
 */
export async function openListener(opts: { addr: string; tls: TlsPair | null; limits: ServerLimits; log: ConsolaInstance }): Promise<Listener> {
  const { limits, log } = opts
  let tls = opts.tls
  let handlers: ListenerHandlers | null = null
  let ready!: () => void
  const served = new Promise<void>((resolve) => (ready = resolve))
  const onRequest = (req: IncomingMessage, res: ServerResponse) => (handlers ? handlers.request(req, res) : void served.then(() => handlers!.request(req, res)))
  const timeouts = { headersTimeout: limits.headers_timeout_ms, requestTimeout: limits.request_timeout_ms }
  // HTTPS of its own (e.g. a `tailscale cert` pair): the web app needs a secure context for Web Push.
  const server: Server | HttpsServer = tls
    ? createHttpsServer({ ...timeouts, key: tls.key, cert: tls.cert, handshakeTimeout: limits.headers_timeout_ms }, onRequest)
    : createServer(timeouts, onRequest)
  const guard = guardServer(server as Server, limits, log)
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    handlers ? handlers.upgrade(req, socket, head) : void served.then(() => handlers!.upgrade(req, socket, head)),
  )
  const { host, port } = splitAddr(opts.addr)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const a = server.address() as AddressInfo
  return {
    url: `${tls ? 'https' : 'http'}://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    host: a.address,
    port: a.port,
    guard,
    serve(h) {
      handlers = h
      ready()
    },
    tlsFingerprint: () => tls?.fingerprint ?? null,
    setTls(pair) {
      if (!tls) return false
      ;(server as HttpsServer).setSecureContext({ key: pair.key, cert: pair.cert })
      tls = pair
      return true
    },
    async close() {
      server.closeAllConnections?.()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The pair named by transport.tls_cert / tls_key, read now; null when neither is set. */
export function configuredTls(config: BridgeConfig): TlsPair | null {
  return config.transport.tls_cert || config.transport.tls_key ? readTlsPair(config) : null
}

/** The PEM pair named by transport.tls_cert / tls_key, read now; one line naming the setting when it cannot be. */
export function readTlsPair(config: BridgeConfig): TlsPair {
  const { tls_cert, tls_key } = config.transport
  if (!tls_cert || !tls_key) throw new Error(`HTTPS needs both a certificate and a key: set ${tls_cert ? 'transport.tls_key (--tls-key)' : 'transport.tls_cert (--tls-cert)'}`)
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path)
    } catch (err) {
      throw new Error(`cannot read the TLS ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
    }
  }
  const cert = read(tls_cert, 'certificate')
  const key = read(tls_key, 'key')
  let x509: X509Certificate
  try {
    x509 = new X509Certificate(cert)
  } catch {
    throw new Error(`the TLS certificate ${tls_cert} is not a PEM certificate`)
  }
  try {
    if (!x509.checkPrivateKey(createPrivateKey(key))) throw new Error('mismatch')
  } catch (err) {
    throw new Error(
      (err as Error).message === 'mismatch' ? `the TLS key ${tls_key} is not the key of the certificate ${tls_cert}` : `the TLS key ${tls_key} is not a PEM private key`,
    )
  }
  return { key, cert, fingerprint: x509.fingerprint256 }
}
