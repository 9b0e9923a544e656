import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { createRelayHub, RELAY_IDLE_MS, type RelayHub } from '../../plugins/suggestions/relay.ts'

/** The dev server's side of the last upgrade. */
let upgraded: Socket | undefined

/** A dev server on loopback: echoes request facts over HTTP and echoes bytes after an upgrade. */
function devServer(): Server {
  const s = createServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ url: req.url, host: req.headers.host, fwd: req.headers['x-forwarded-host'], cookie: req.headers.cookie ?? null }))
  })
  s.on('upgrade', (req, sock: Socket) => {
    upgraded = sock
    sock.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\nx-saw-host: ${req.headers.host}\r\n\r\n`)
    sock.on('data', (d) => sock.write(Buffer.concat([Buffer.from('echo:'), d])))
  })
  return s
}

function rawUpgrade(port: number, cookie?: string): Promise<{ head: string; sock: Socket }> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port })
    let buf = ''
    sock.on('error', reject)
    sock.on('connect', () => sock.write(`GET /ws HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nupgrade: websocket\r\nconnection: upgrade\r\n${cookie ? `cookie: ${cookie}\r\n` : ''}\r\n`))
    const onData = (d: Buffer) => {
      buf += d.toString('latin1')
      const end = buf.indexOf('\r\n\r\n')
      if (end >= 0) {
        sock.off('data', onData)
        resolve({ head: buf.slice(0, end), sock })
      }
    }
    sock.on('data', onData)
  })
}

describe('loopback relay', () => {
  let clock = 1_000_000
  let hub: RelayHub
  const dev = devServer()
  let devPort: number
  beforeAll(async () => {
    await new Promise<void>((ok) => dev.listen(0, '127.0.0.1', () => ok()))
    devPort = (dev.address() as AddressInfo).port
    hub = createRelayHub({ listenHost: '127.0.0.1', now: () => clock })
  })
  afterAll(async () => {
    await hub.close()
    dev.closeAllConnections()
    dev.close()
  })

  it('exchanges a one-time token for a cookie, then proxies with the target Host and no relay cookie', async () => {
    const url = new URL((await hub.urlFor({ bind: '127.0.0.1', port: devPort }, '127.0.0.1'))!)
    const base = `http://${url.host}`
    const first = await fetch(`${base}/?bridge_preview=${url.searchParams.get('bridge_preview')}&x=1`, { redirect: 'manual' })
    expect([first.status, first.headers.get('location')]).toEqual([302, '/?x=1'])
    const cookie = first.headers.get('set-cookie')!.split(';')[0]
    const r = await fetch(`${base}/page?q=2`, { headers: { cookie: `${cookie}; app=1` } })
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({ url: '/page?q=2', host: `localhost:${devPort}`, fwd: url.host, cookie: 'app=1' })
    expect((await fetch(`${base}/`, { headers: { cookie: `${cookie.split('=')[0]}=${'0'.repeat(64)}` } })).status).toBe(401)
  })

  it('passes WebSocket-style upgrades through only with the cookie', async () => {
    const url = new URL((await hub.urlFor({ bind: '127.0.0.1', port: devPort }, '127.0.0.1'))!)
    const first = await fetch(url, { redirect: 'manual' })
    const cookie = first.headers.get('set-cookie')!.split(';')[0]
    const refused = await rawUpgrade(Number(url.port))
    expect(refused.head.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized')
    refused.sock.destroy()
    const up = await rawUpgrade(Number(url.port), cookie)
    expect(up.head).toContain('HTTP/1.1 101 Switching Protocols')
    expect(up.head).toContain(`x-saw-host: localhost:${devPort}`)
    const echoed = new Promise<string>((ok) => up.sock.once('data', (d) => ok(d.toString())))
    up.sock.write('ping')
    expect(await echoed).toBe('echo:ping')
    up.sock.destroy()
    // The client hanging up closes the dev server's side too.
    await vi.waitFor(() => expect(upgraded?.readableEnded).toBe(true))
  })

  it('answers 502 when the dev server stopped, and closes when idle', async () => {
    const gone = createServer()
    await new Promise<void>((ok) => gone.listen(0, '127.0.0.1', () => ok()))
    const port = (gone.address() as AddressInfo).port
    const url = new URL((await hub.urlFor({ bind: '127.0.0.1', port }, '127.0.0.1'))!)
    await new Promise<void>((ok) => gone.close(() => ok()))
    const first = await fetch(url, { redirect: 'manual' })
    const cookie = first.headers.get('set-cookie')!.split(';')[0]
    const r = await fetch(`http://${url.host}/`, { headers: { cookie } })
    expect([r.status, await r.text()]).toEqual([502, `the dev server on port ${port} is not answering — it may have stopped`])
    clock += RELAY_IDLE_MS + 1
    await hub.sweep()
    await expect(fetch(`http://${url.host}/`, { headers: { cookie } })).rejects.toThrow()
  })
})
