import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { connect, createServer, type AddressInfo, type Server } from 'node:net'
import { types } from 'node:util'
import { createConsola } from 'consola'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { defineBridgePlugin, defineBridgeRoute, defineBridgeWebSocket } from '../../core/plugin.ts'
import { openListener } from '../../core/listener.ts'
import { defaultLimits } from '../../core/limits.ts'
import pairing from '../../plugins/pairing/index.ts'

/**
 * Where the HTTP layer's cross-cutting work runs (core/http.ts): h3's hooks map what a route
 * throws to its one-line answer inside CORS and compression, a route's body reaches its schema
 * as read (no stand-in request), an upgrade reaches only a WebSocket route, and `bridge serve`'s
 * port is bound before the bridge is set up (core/listener.ts).
 */

let b: TestBridge | undefined
afterEach(async () => {
  await b?.close()
  b = undefined
})

const ORIGIN = 'https://app.example.com'

function probe() {
  const calls = { get: 0 }
  const plugin = defineBridgePlugin({
    name: 'hooks-probe',
    routes: [
      defineBridgeRoute({
        method: 'POST',
        path: '/hooks/strict',
        auth: 'admin',
        errors: 'json',
        body: v.object({ pane: v.pipe(v.string(), v.trim(), v.minLength(1)) }),
        // The handler sees the schema's output and the request h3 made, not a stand-in.
        handler: ({ body, event }) => ({ pane: body.pane, proxied: types.isProxy(event.req) }),
      }),
      defineBridgeRoute({
        method: 'POST',
        path: '/hooks/broken',
        auth: 'admin',
        audit: false,
        handler: () => {
          throw new Error('disk on fire')
        },
      }),
      defineBridgeRoute({ method: 'GET', path: '/hooks/read', auth: 'none', handler: () => (calls.get++, { ok: true }) }),
    ],
    websockets: [defineBridgeWebSocket({ path: '/hooks/ws', auth: 'device', queryToken: true, open: (peer) => void peer.send('hi') })],
  })
  return { plugin, calls }
}

/** The raw answer to a WebSocket upgrade request: up to the server's close, or its 101 head (then hung up). */
function rawUpgrade(url: string, path: string): Promise<string> {
  const u = new URL(url)
  return new Promise((resolve) => {
    const s = connect(Number(u.port), '127.0.0.1')
    s.write(
      `GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    )
    let got = ''
    s.on('data', (d) => {
      got += d
      if (got.startsWith('HTTP/1.1 101') && got.includes('\r\n\r\n')) s.destroy()
    })
    s.on('close', () => resolve(got))
    s.on('error', () => resolve(got))
  })
}

describe('h3 hooks', () => {
  it("a route's thrown error is its one-line answer, with the CORS and Vary headers of any answer", async () => {
    const p = probe()
    b = await startBridge({ user: { plugins: [pairing, p.plugin] }, env: { BRIDGE_ALLOWED_ORIGINS: ORIGIN } })
    const res = await b.request('/hooks/strict', { method: 'POST', json: { pane: '   ' }, headers: { origin: ORIGIN } })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await res.json()).toEqual({ error: 'pane: Invalid length: Expected >=1 but received 0' })
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(res.headers.get('vary')).toContain('Accept-Encoding')
  })

  it("the body reaches the handler as its schema's output, on h3's own request", async () => {
    const p = probe()
    b = await startBridge({ user: { plugins: [pairing, p.plugin] } })
    const res = await b.request('/hooks/strict', { method: 'POST', json: { pane: '  %1  ' } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ pane: '%1', proxied: false })
  })

  it('an unexpected throw is a 500 in one line, logged once without a stack on the console', async () => {
    const p = probe()
    const lines: string[] = []
    const log = createConsola({ level: 3, reporters: [{ log: (l) => void lines.push(l.args.map(String).join(' ')) }] }).withTag('bridge')
    b = await startBridge({ user: { plugins: [pairing, p.plugin] }, log })
    const printed: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => void printed.push(args)
    try {
      const res = await b.request('/hooks/broken', { method: 'POST', json: {} })
      expect(res.status).toBe(500)
      expect(await res.text()).toBe('internal error (see the bridge log)')
    } finally {
      console.error = original
    }
    expect(printed).toEqual([])
    expect(lines.filter((l) => l.startsWith('POST /hooks/broken failed:'))).toHaveLength(1)
  })

  it('an upgrade on a path without a WebSocket route is 404 and runs no handler; on its route it upgrades', async () => {
    const p = probe()
    b = await startBridge({ user: { plugins: [pairing, p.plugin] } })
    const refused = await rawUpgrade(b.url, '/hooks/read')
    expect(refused.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 404\b/)
    expect(refused.endsWith('\r\n\r\nnot found')).toBe(true)
    expect(p.calls.get).toBe(0)
    const ok = await rawUpgrade(b.url, `/hooks/ws?token=${b.adminToken}`)
    expect(ok.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols')
  })
})

describe('the listener', () => {
  const silent = createConsola({ level: 0 })

  it('binds before it serves: a request sent meanwhile waits and is answered', async () => {
    const listener = await openListener({ addr: '127.0.0.1:0', tls: null, limits: defaultLimits(), log: silent })
    try {
      const pending = fetch(`${listener.url}/early`).then(async (r) => `${r.status} ${await r.text()}`)
      // Nothing answers until the port is handed over (no event says "not answered": a bounded wait).
      const first = await Promise.race([pending, new Promise((r) => setTimeout(r, 200, 'waiting'))])
      expect(first).toBe('waiting')
      listener.serve({ request: (req, res) => res.end(`served ${req.url}`), upgrade: (_req, socket) => socket.destroy() })
      expect(await pending).toBe('200 served /early')
    } finally {
      await listener.close()
    }
  })

  it('a taken port fails with listen’s own EADDRINUSE, and the holder keeps it', async () => {
    const holder: Server = await new Promise((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => resolve(s))
    })
    try {
      const port = (holder.address() as AddressInfo).port
      await expect(openListener({ addr: `127.0.0.1:${port}`, tls: null, limits: defaultLimits(), log: silent })).rejects.toMatchObject({ code: 'EADDRINUSE' })
      expect(holder.listening).toBe(true)
    } finally {
      holder.close()
    }
  })
})
