import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http'
import { isIP, type AddressInfo, type Socket } from 'node:net'
import { randomBytes } from 'node:crypto'
import { parse as parseCookies, serialize as serializeCookie } from 'cookie-es'
import { createProxyServer, type ProxyServer } from 'httpxy'
import { consola, type ConsolaInstance } from 'consola/basic'
import { safeEqual } from '../../core/tokens.ts'
import { defaultLimits, guardServer, refuse, type ServerGuard, type ServerLimits } from '../../core/limits.ts'
import type { HostCheck } from '../../core/host-check.ts'

/**
 * The loopback relay behind `dev_server_local`: a reverse proxy on a bridge-owned port to a dev
 * server that listens on loopback only, WebSockets passed through (httpxy). Access takes a one-time URL
 * token, exchanged on first use for an HttpOnly cookie; a relay idle for 5 minutes closes.
 *
 * A relay port is as reachable as the bridge's, by anyone, so it is held back like the bridge:
 * the same Host check and deadlines, a quarter of its connection caps (a relayed connection
 * holds two descriptors), and no client's socket error or failed accept ends the process.
 */

export const RELAY_IDLE_MS = 5 * 60_000
const SWEEP_MS = 60_000
const TOKEN_TTL_MS = 10 * 60_000
const QUERY_KEY = 'bridge_preview'

interface Relay {
  server: Server
  proxy: ProxyServer
  port: number
  target: { host: string; port: number }
  /** Cookie value granting access (never in a URL). */
  secret: string
  cookie: string
  /** One-time URL tokens → expiry. */
  tokens: Map<string, number>
  lastUsed: number
  sockets: Set<Socket>
  guard: ServerGuard
}

export interface RelayHubOptions {
  listenHost: string
  now?: () => number
  log?: ConsolaInstance
  /** The bridge's limits (defaults when absent). */
  limits?: ServerLimits
  /** The bridge's Host check; without one every Host is served. */
  hosts?: HostCheck
}

/** Each relay's share: the bridge's deadlines, a quarter of its connection caps. */
function relayLimits(l: ServerLimits): ServerLimits {
  return { ...l, max_connections: Math.max(8, Math.floor(l.max_connections / 4)), max_unauthenticated: Math.max(4, Math.floor(l.max_unauthenticated / 4)) }
}

/** A relay's access cookie, this relay's or another's (`bridge_preview_<port>`). */
const isRelayCookie = (name: string) => name === QUERY_KEY || name.startsWith(`${QUERY_KEY}_`)

/**
 * The Cookie header without any relay's access cookie. Cookies ignore ports, so a browser sends
 * every relay's cookie to every relay on the host: stripping only this relay's own would hand a
 * dev server the secret that opens another relay.
 */
function stripCookie(header: string | undefined): string | undefined {
  if (!header) return undefined
  const kept = header.split(';').filter((p) => !isRelayCookie(p.split('=')[0].trim()))
  return kept.length ? kept.join(';').trim() : undefined
}

export interface RelayHub {
  /** A one-time URL to the relay for a loopback listener, opening the relay if needed; undefined when it cannot start. */
  urlFor(target: { bind: string; port: number }, publicHost: string): Promise<string | undefined>
  /** Closes relays idle for 5 minutes (runs every minute on its own). */
  sweep(): Promise<void>
  close(): Promise<void>
}

export function createRelayHub(opts: RelayHubOptions): RelayHub {
  const now = opts.now ?? Date.now
  const log = opts.log ?? consola.withTag('preview-relay')
  const limits = relayLimits(opts.limits ?? defaultLimits())
  const relays = new Map<number, Relay>()
  const opening = new Map<number, Promise<Relay | undefined>>()

  const sweepIdle = async () => {
    await Promise.all([...relays].filter(([, r]) => now() - r.lastUsed > RELAY_IDLE_MS && r.sockets.size === 0).map(([port]) => closeRelay(port)))
  }
  const sweep = setInterval(() => void sweepIdle(), SWEEP_MS)
  sweep.unref()

  const closeRelay = async (port: number) => {
    const r = relays.get(port)
    if (!r) return
    relays.delete(port)
    for (const s of r.sockets) s.destroy()
    r.server.closeAllConnections?.()
    await new Promise<void>((ok) => r.server.close(() => ok()))
  }

  /** Access check shared by HTTP and upgrades: cookie, or a one-time token (then redirect). */
  const admit = (r: Relay, req: IncomingMessage): 'ok' | 'exchange' | 'refuse' => {
    const c = parseCookies(req.headers.cookie ?? '')[r.cookie]
    if (c && safeEqual(c, r.secret)) return 'ok'
    const url = new URL(req.url ?? '/', 'http://relay')
    const t = url.searchParams.get(QUERY_KEY)
    if (!t) return 'refuse'
    const exp = r.tokens.get(t)
    if (!exp || exp < now()) return 'refuse'
    r.tokens.delete(t) // one use only
    return 'exchange'
  }

  /** What the dev server sees: its own Host, where the request came from, and no relay cookie. */
  const forwardAs = (r: Relay, req: IncomingMessage) => {
    const cookie = stripCookie(req.headers.cookie)
    if (cookie) req.headers.cookie = cookie
    else delete req.headers.cookie
    return { headers: { host: `localhost:${r.target.port}`, 'x-forwarded-host': req.headers.host ?? '', 'x-forwarded-proto': 'http' } }
  }

  const misdirected = (req: IncomingMessage) => (opts.hosts && !opts.hosts.allows(req.headers.host) ? opts.hosts.refusal(req.headers.host!) : null)

  const handle = (r: Relay, req: IncomingMessage, res: ServerResponse) => {
    const wrongHost = misdirected(req)
    if (wrongHost) {
      res.writeHead(421, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(wrongHost), connection: 'close' }).end(wrongHost)
      return
    }
    r.lastUsed = now()
    const verdict = admit(r, req)
    if (verdict === 'refuse') {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' }).end('unauthorized: open this preview from the app')
      return
    }
    r.guard.authenticated(req.socket)
    if (verdict === 'exchange') {
      const url = new URL(req.url ?? '/', 'http://relay')
      url.searchParams.delete(QUERY_KEY)
      res
        .writeHead(302, {
          location: url.pathname + url.search,
          'set-cookie': serializeCookie(r.cookie, r.secret, { path: '/', httpOnly: true, sameSite: 'lax' }),
          'cache-control': 'no-store',
        })
        .end()
      return
    }
    void r.proxy.web(req, res, forwardAs(r, req))
  }

  // The guard's 'error' listener stays on the socket after node hands it over here; without it
  // a client resetting before this answer is written ended the daemon (ECONNRESET).
  const upgrade = (r: Relay, req: IncomingMessage, client: Socket, head: Buffer) => {
    const wrongHost = misdirected(req)
    if (wrongHost) return refuse(client, '421 Misdirected Request', wrongHost)
    r.lastUsed = now()
    if (admit(r, req) !== 'ok') return refuse(client, '401 Unauthorized', '')
    r.guard.authenticated(client)
    // Counted while open, so an idle sweep never cuts a live socket.
    r.sockets.add(client)
    client.on('close', () => r.sockets.delete(client))
    void r.proxy.ws(req, client, forwardAs(r, req), head)
  }

  const open = async (target: { host: string; port: number }): Promise<Relay | undefined> => {
    const server = createServer()
    const guard = guardServer(server, limits, log)
    const proxy = createProxyServer({ target: { host: target.host, port: target.port }, ws: true })
    proxy.on('error', (_err, _req, res) => {
      if (res instanceof ServerResponse && !res.headersSent)
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(`the dev server on port ${target.port} is not answering — it may have stopped`)
      else res?.destroy()
    })
    // httpxy pipes the two sockets of an upgrade; either one closing closes the other.
    proxy.on('proxyReqWs', (proxyReq, _req, client) =>
      proxyReq.on('upgrade', (_res, upstream: Socket) => {
        client.once('close', () => upstream.destroy())
        upstream.once('close', () => client.destroy())
      }),
    )
    const relay: Relay = {
      server,
      proxy,
      port: 0,
      target,
      secret: randomBytes(32).toString('hex'),
      cookie: '',
      tokens: new Map(),
      lastUsed: now(),
      sockets: new Set(),
      guard,
    }
    server.on('request', (req, res) => handle(relay, req, res))
    server.on('upgrade', (req, sock, head) => upgrade(relay, req, sock as Socket, head))
    // Only a failed listen is this call's error; later ones (a failed accept) are the guard's.
    try {
      await new Promise<void>((ok, fail) => {
        server.once('error', fail)
        server.listen(0, opts.listenHost, () => {
          server.off('error', fail)
          ok()
        })
      })
    } catch (err) {
      log.warn(`preview relay for port ${target.port} could not start: ${(err as Error).message}`)
      return undefined
    }
    relay.port = (server.address() as AddressInfo).port
    // Cookies ignore ports: a name per relay keeps two previews on one host apart.
    relay.cookie = `${QUERY_KEY}_${relay.port}`
    relays.set(target.port, relay)
    return relay
  }

  return {
    async urlFor(target, publicHost) {
      const host = target.bind === '::1' ? '::1' : '127.0.0.1'
      let r = relays.get(target.port)
      if (!r) {
        let p = opening.get(target.port)
        if (!p) {
          p = open({ host, port: target.port }).finally(() => opening.delete(target.port))
          opening.set(target.port, p)
        }
        r = await p
      }
      if (!r || !publicHost) return undefined
      const token = randomBytes(32).toString('hex')
      for (const [t, exp] of r.tokens) if (exp < now()) r.tokens.delete(t)
      r.tokens.set(token, now() + TOKEN_TTL_MS)
      r.lastUsed = now()
      const h = isIP(publicHost) === 6 ? `[${publicHost}]` : publicHost
      return `http://${h}:${r.port}/?${QUERY_KEY}=${token}`
    },
    sweep: sweepIdle,
    async close() {
      clearInterval(sweep)
      await Promise.all([...relays.keys()].map(closeRelay))
    },
  }
}
