import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, Server } from 'node:http'
import { createConsola } from 'consola'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { createRelayHub, type RelayHub } from '../../plugins/suggestions/relay.ts'
import { createHostCheck } from '../../core/host-check.ts'
import { defaultLimits } from '../../core/limits.ts'
import type { BridgeConfig } from '../../core/config.ts'

/**
 * The preview relay listens where the bridge listens, so any client reaches it. It must cost no
 * more than the bridge: a client resetting its upgrade, a failed accept, an unknown Host or a
 * flood of idle connections must never end the process or hold it (the setup file fails a test
 * on any unhandled error in this process). And a dev server dying mid-body ends the client's
 * response instead of holding its connection.
 */

let dev: Server
let devPort: number
beforeAll(async () => {
  dev = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' })
    res.write('part')
    setTimeout(() => res.socket?.destroy(), 50)
  })
  await new Promise<void>((ok) => dev.listen(0, '127.0.0.1', () => ok()))
  devPort = (dev.address() as AddressInfo).port
})
afterAll(() => {
  dev.closeAllConnections()
  dev.close()
})

/** A hub for one test, closed after it. */
async function withHub<T>(opts: Partial<Parameters<typeof createRelayHub>[0]>, run: (hub: RelayHub, url: URL) => Promise<T>): Promise<T> {
  const hub = createRelayHub({ listenHost: '127.0.0.1', ...opts })
  try {
    const url = new URL((await hub.urlFor({ bind: '127.0.0.1', port: devPort }, '127.0.0.1'))!)
    return await run(hub, url)
  } finally {
    await hub.close()
  }
}

const quiet = createConsola({ level: -999 })
const unbounded = { ...defaultLimits(), max_connections: 1 << 20, max_unauthenticated: 1 << 20 }
const upgradeRequest = (host: string) => `GET / HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`

/** Everything the relay sends on one connection until it closes it. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(request))
    let got = ''
    s.on('data', (d) => (got += d.toString('latin1')))
    s.on('close', () => resolve(got))
    s.on('error', reject)
  })
}

describe('the preview relay when the dev server dies mid-body', () => {
  it('ends the client response instead of holding its connection', async () => {
    await withHub({}, async (_hub, url) => {
      const base = `http://${url.host}`
      const first = await fetch(`${base}/?bridge_preview=${url.searchParams.get('bridge_preview')}`, { redirect: 'manual' })
      expect(first.status).toBe(302)
      const cookie = first.headers.get('set-cookie')!.split(';')[0]
      const res = await fetch(`${base}/`, { headers: { cookie } })
      expect(res.status).toBe(200)
      const outcome = await Promise.race([
        res.text().then(
          () => 'completed',
          () => 'ended',
        ),
        new Promise((ok) => setTimeout(() => ok('still open after 10 s'), 10_000)),
      ])
      expect(outcome).toBe('ended')
    })
  }, 20_000)
})

describe('clients the relay refuses', () => {
  it('300 upgrades reset as soon as they are sent: the process lives and the relay answers the next one', async () => {
    await withHub({ limits: unbounded }, async (_hub, url) => {
      const port = Number(url.port)
      const closed = await Promise.all(
        Array.from(
          { length: 300 },
          () =>
            new Promise<void>((resolve) => {
              const s = connect(port, '127.0.0.1', () => {
                s.write(upgradeRequest('127.0.0.1'))
                setImmediate(() => s.resetAndDestroy())
              })
              s.on('error', () => {})
              s.on('close', () => resolve())
            }),
        ),
      )
      expect(closed).toHaveLength(300)
      // Answered after the resets were handled: a refused upgrade, in full.
      expect(await exchange(port, upgradeRequest('127.0.0.1'))).toBe(
        'HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 0\r\nconnection: close\r\n\r\n',
      )
    })
  })

  it('a Host the bridge does not serve gets 421 with one line, on requests and upgrades', async () => {
    const config = { transport: { addr: '127.0.0.1:8787', public_url: '', allowed_hosts: [] } } as unknown as BridgeConfig
    await withHub({ hosts: createHostCheck(config) }, async (_hub, url) => {
      const port = Number(url.port)
      const line =
        'host rebound.example is not served here; add it to transport.allowed_hosts or BRIDGE_ALLOWED_HOSTS (a name or *.suffix), set transport.public_url to its URL, or pair once with `bridge pair --url https://rebound.example`'
      const token = url.searchParams.get('bridge_preview')
      const r = await exchange(port, `GET /?bridge_preview=${token} HTTP/1.1\r\nHost: rebound.example:${port}\r\nConnection: close\r\n\r\n`)
      expect([r.split('\r\n')[0], r.slice(r.indexOf('\r\n\r\n') + 4)]).toEqual(['HTTP/1.1 421 Misdirected Request', line])
      const u = await exchange(port, upgradeRequest(`rebound.example:${port}`))
      expect([u.split('\r\n')[0], u.slice(u.indexOf('\r\n\r\n') + 4)]).toEqual(['HTTP/1.1 421 Misdirected Request', line])
      // The token was not spent on the refused request: it still opens the preview.
      const ok = await fetch(`http://${url.host}/?bridge_preview=${token}`, { redirect: 'manual' })
      expect(ok.status).toBe(302)
    })
  })

  it('past its share of the unauthenticated cap a connection gets a one-line 503', async () => {
    // The bridge's 16 unauthenticated connections: a relay takes a quarter, 4.
    await withHub({ log: quiet, limits: { ...defaultLimits(), max_unauthenticated: 16 } }, async (_hub, url) => {
      const port = Number(url.port)
      const idle: Socket[] = []
      try {
        for (let i = 0; i < 4; i++) {
          const s = connect(port, '127.0.0.1')
          s.on('error', () => {})
          await new Promise((r) => s.once('connect', r))
          idle.push(s)
        }
        const over = await exchange(port, '')
        expect(over.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable')
        expect(over.slice(over.indexOf('\r\n\r\n') + 4)).toBe('too many unauthenticated connections; retry later\n')
      } finally {
        for (const s of idle) s.destroy()
      }
    })
  })
})

describe("errors on the relay's listening socket", () => {
  it('a failed accept, again and again, is logged and the relay keeps serving', async () => {
    const warnings: string[] = []
    const log = createConsola({ level: 5, reporters: [{ log: (o) => void (o.type === 'warn' && warnings.push(String(o.args[0]))) }] })
    await withHub({ log }, async (_hub, url) => {
      const port = Number(url.port)
      // libuv absorbs an EMFILE on accept with a reserve descriptor, so a failed accept reaches
      // the server only when that fails too (or on ENFILE, ENOMEM, ENOBUFS): out of a test's
      // reach. The relay's own server gets the event as node would deliver it.
      const server = (process as unknown as { _getActiveHandles(): unknown[] })
        ._getActiveHandles()
        .find((h): h is Server => h instanceof Server && (h.address() as AddressInfo | null)?.port === port)!
      expect(server).toBeDefined()
      for (let i = 0; i < 3; i++) server.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' }))
      expect(warnings).toEqual(['listener: EMFILE', 'listener: EMFILE', 'listener: EMFILE'])
      expect((await exchange(port, upgradeRequest('127.0.0.1'))).split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized')
    })
  })
})
