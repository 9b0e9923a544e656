import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { request as httpRequest } from 'node:http'
import { hostname } from 'node:os'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { connect } from 'node:net'
import { createHostCheck, hostOf } from '../../core/host-check.ts'
import { isJsonContentType } from '../../core/content-type.ts'
import { loadConfig } from '../../core/config.ts'

/**
 * DNS rebinding and cross-site posts: a page on another site reaches the bridge under its own
 * name (Host) and may post text/plain or form bodies without a preflight. Before the fix both
 * reached the routes, and /pair parsed a text/plain body and spent the pairing budget.
 */

let b: TestBridge
beforeAll(async () => {
  b = await startBridge({
    configFile: { transport: { public_url: 'https://bridge.example.net:8443/', allowed_hosts: ['phone-only.example', '*.tailnet.example'] } },
    env: { BRIDGE_ALLOWED_HOSTS: 'from-env.example' },
  })
})
afterAll(() => b?.close())

/** A request with any Host header (fetch will not send a foreign one). */
function call(path: string, o: { method?: string; host?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string; type: string }> {
  const u = new URL(b.url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: o.method ?? 'GET',
        headers: { host: o.host ?? u.host, ...o.headers, ...(o.body !== undefined ? { 'content-length': String(Buffer.byteLength(o.body)) } : {}) },
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type'] ?? '') }))
      },
    )
    req.on('error', reject)
    req.end(o.body)
  })
}

const admin = () => ({ authorization: `Bearer ${b.adminToken}` })

describe('Host header', () => {
  test('a foreign host name gets 421 with one line, before auth and before any route', async () => {
    const want = {
      status: 421,
      body: 'host rebind.attacker.example is not served here; add it to transport.allowed_hosts or BRIDGE_ALLOWED_HOSTS (a name or *.suffix), set transport.public_url to its URL, or pair once with `bridge pair --url https://rebind.attacker.example`',
      type: 'text/plain; charset=utf-8',
    }
    expect(await call('/health', { host: 'rebind.attacker.example:8787' })).toEqual(want)
    expect(await call('/info', { host: 'rebind.attacker.example', headers: admin() })).toEqual(want)
    expect(await call('/pair', { method: 'POST', host: 'rebind.attacker.example', headers: { 'content-type': 'application/json' }, body: '{"code":"00000000"}' })).toEqual(want)
    expect(
      await call('/pair', { method: 'OPTIONS', host: 'rebind.attacker.example', headers: { origin: 'https://herdr-bridge.github.io', 'access-control-request-method': 'POST' } }),
    ).toEqual(want)
  })

  test('a WebSocket upgrade under a foreign host name gets 421', async () => {
    const u = new URL(b.wsUrl)
    const s = connect(Number(u.port), '127.0.0.1')
    s.write(
      `GET /events?token=${b.adminToken} HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    )
    const raw = await new Promise<string>((resolve) => {
      let got = ''
      s.on('data', (d) => (got += d))
      s.on('close', () => resolve(got))
      s.on('error', () => resolve(got))
      setTimeout(() => (s.destroy(), resolve(got)), 5000)
    })
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 421 Misdirected Request')
    expect(
      raw.endsWith(
        '\r\n\r\nhost evil.example is not served here; add it to transport.allowed_hosts or BRIDGE_ALLOWED_HOSTS (a name or *.suffix), set transport.public_url to its URL, or pair once with `bridge pair --url https://evil.example`',
      ),
    ).toBe(true)
  })

  test('IP literals, localhost, this machine, public_url and the configured names are served', async () => {
    const port = new URL(b.url).port
    for (const host of [
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      '192.168.1.20:8787',
      `localhost:${port}`,
      'LOCALHOST',
      `${hostname()}:${port}`,
      'bridge.example.net:8443',
      'phone-only.example',
      'laptop.tailnet.example',
      'from-env.example:80',
    ]) {
      expect({ host, status: (await call('/info', { host, headers: admin() })).status }).toEqual({ host, status: 200 })
    }
    // The wildcard covers subdomains, not the bare name, and not look-alikes.
    for (const host of ['tailnet.example', 'eviltailnet.example', 'bridge.example.net.evil.example']) {
      expect({ host, status: (await call('/info', { host, headers: admin() })).status }).toEqual({ host, status: 421 })
    }
  })

  test('hostOf and the check, unit', () => {
    expect(hostOf('Example.COM:80')).toBe('example.com')
    expect(hostOf('[::1]:8787')).toBe('::1')
    expect(hostOf('::1')).toBe('::1')
    const config = loadConfig({ dir: b.dataDir, env: { ...b.env, BRIDGE_ALLOWED_HOSTS: '' } })
    const check = createHostCheck(config)
    expect(check.allows(undefined)).toBe(true)
    expect(check.allows('10.0.0.1')).toBe(true)
    expect(check.allows('app.localhost')).toBe(true)
    expect(check.allows('from-env.example')).toBe(false)
    expect(check.refusal('a\u0007b.example')).toBe(
      'host a\\u0007b.example is not served here; add it to transport.allowed_hosts or BRIDGE_ALLOWED_HOSTS (a name or *.suffix), set transport.public_url to its URL, or pair once with `bridge pair --url https://a\\u0007b.example`',
    )
  })
})

describe('JSON routes read only JSON', () => {
  const refused = { status: 415, body: 'want Content-Type: application/json', type: 'text/plain; charset=utf-8' }

  test('/pair refuses text/plain, form and multipart bodies with 415, and they do not count as failed attempts', async () => {
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      for (let i = 0; i < 6; i++) {
        expect(await call('/pair', { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify({ code: 'deadbeef' }) })).toEqual(refused)
      }
    }
    // 24 refused posts later the limiter (10 failures a minute) has not been touched.
    const dev = await b.pair('after-cross-site')
    expect(dev.bearer).toMatch(/^[0-9a-f]{64}$/)
  })

  test('JSON, JSON with charset, +json and no Content-Type are read', async () => {
    const variants: Record<string, string>[] = [
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json; charset=utf-8' },
      { 'content-type': 'Application/JSON;charset=UTF-8' },
      { 'content-type': 'application/vnd.api+json' },
      {},
    ]
    for (const headers of variants) {
      const code = ((await (await b.request('/admin/pairing', { method: 'POST' })).json()) as { code: string }).code
      const r = await call('/pair', { method: 'POST', headers, body: JSON.stringify({ code, device_name: 'typed', fcm_token: '' }) })
      expect({ headers, status: r.status }).toEqual({ headers, status: 200 })
    }
  })

  test('an authenticated JSON route refuses a form body with 415 before reading it', async () => {
    expect(await call('/admin/devices/revoke', { method: 'POST', headers: { ...admin(), 'content-type': 'application/x-www-form-urlencoded' }, body: 'id=x' })).toEqual({
      status: 415,
      body: JSON.stringify({ error: 'want Content-Type: application/json' }),
      type: 'application/json; charset=utf-8',
    })
  })

  test('a body-less POST with any type is still served (command-line clients)', async () => {
    const r = await call('/admin/pairing', { method: 'POST', headers: { ...admin(), 'content-type': 'application/x-www-form-urlencoded' }, body: '' })
    expect(r.status).toBe(200)
  })

  test('isJsonContentType, unit', () => {
    expect(isJsonContentType(null)).toBe(true)
    expect(isJsonContentType('application/json')).toBe(true)
    expect(isJsonContentType('application/problem+json; charset=utf-8')).toBe(true)
    expect(isJsonContentType('text/json')).toBe(false)
    expect(isJsonContentType('application/jsonx')).toBe(false)
    expect(isJsonContentType('text/plain')).toBe(false)
  })
})
