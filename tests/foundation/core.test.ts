import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebSocket } from 'undici'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { loadConfig } from '../../core/config.ts'
import { fcmSettings } from '../../plugins/notify-fcm/settings.ts'
import { loadPlugins } from '../../core/loader.ts'
import { defineBridgePlugin, defineBridgeRoute, defineBridgeWebSocket } from '../../core/plugin.ts'
import pairing from '../../plugins/pairing/index.ts'
import web from '../../plugins/web/index.ts'
import { fail } from '../../core/respond.ts'
import type { OpenApiDoc } from '../contract/conform.ts'

let b: TestBridge | undefined
afterEach(async () => {
  await b?.close()
  b = undefined
})

/** A plugin that counts what reaches its handlers, to prove refused requests do no work. */
function probe() {
  const calls = { route: 0, ws: 0 }
  const plugin = defineBridgePlugin({
    name: 'probe',
    routes: [
      defineBridgeRoute({
        method: 'POST',
        path: '/probe',
        auth: 'device',
        body: v.object({ pane: v.optional(v.string()), text: v.optional(v.string()) }),
        audit: ({ body }) => ({ pane: body.pane, text_length: body.text?.length }),
        handler: () => (calls.route++, { ok: true }),
      }),
      // Echoes what the core hands a handler without schemas: nothing the document would not list.
      defineBridgeRoute({ method: 'POST', path: '/probe/echo', auth: 'device', audit: false, handler: ({ query, body }) => ({ query, body }) }),
      defineBridgeRoute({ method: 'GET', path: '/probe/admin', auth: 'admin', errors: 'json', handler: () => (calls.route++, { ok: true }) }),
    ],
    websockets: [
      defineBridgeWebSocket({
        path: '/probe/ws',
        auth: 'device',
        queryToken: true,
        accept: () => (calls.ws++, {}),
        open: (peer) => {
          peer.send('hello')
        },
      }),
    ],
  })
  return { plugin, calls }
}

describe('auth', () => {
  it('answers 401 unauthorized before any handler runs', async () => {
    const p = probe()
    b = await startBridge({ user: { plugins: [pairing, p.plugin, web] } })
    for (const token of [null, 'wrong', 'a'.repeat(64)]) {
      const res = await b.request('/probe', { method: 'POST', token, json: { x: 1 } })
      expect(res.status).toBe(401)
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
      expect(await res.text()).toBe('unauthorized')
    }
    // ?token= is refused where the manifest does not allow it.
    expect((await b.request(`/probe?token=${b.adminToken}`, { method: 'POST', token: null })).status).toBe(401)
    const ws = await fetch(`${b.url}/probe/ws?token=nope`)
    expect(ws.status).toBe(401)
    expect(p.calls).toEqual({ route: 0, ws: 0 })
    expect((await b.request('/probe', { method: 'POST' })).status).toBe(200)
    expect(p.calls.route).toBe(1)
  })

  it('answers 405 naming the allowed method, after auth', async () => {
    const p = probe()
    b = await startBridge({ user: { plugins: [pairing, p.plugin, web] } })
    const res = await b.request('/probe', { method: 'GET' })
    expect(res.status).toBe(405)
    expect(await res.text()).toBe('POST only')
    expect((await b.request('/probe', { method: 'GET', token: null })).status).toBe(401)
    expect(p.calls.route).toBe(0)
  })

  it('answers 426 for a plain GET on a WebSocket route and upgrades with ?token=', async () => {
    const p = probe()
    b = await startBridge({ user: { plugins: [pairing, p.plugin, web] } })
    expect((await fetch(`${b.url}/probe/ws?token=${b.adminToken}`)).status).toBe(426)
    const ws = new WebSocket(`${b.wsUrl}/probe/ws?token=${b.adminToken}`)
    const first = await new Promise<string>((resolve, reject) => {
      ws.onmessage = (e) => resolve(String(e.data))
      ws.onerror = () => reject(new Error('ws error'))
    })
    expect(first).toBe('hello')
    ws.close()
  })

  it('closes a device socket the moment the device is revoked, leaving others open', async () => {
    const p = probe()
    b = await startBridge({ user: { plugins: [pairing, p.plugin, web] } })
    const one = await b.pair('one')
    const two = await b.pair('two')
    const open = (bearer: string) =>
      new Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }>((resolve, reject) => {
        const ws = new WebSocket(`${b!.wsUrl}/probe/ws?token=${bearer}`)
        const closed = new Promise<{ code: number; reason: string }>((r) => (ws.onclose = (e) => r({ code: e.code, reason: e.reason })))
        ws.onmessage = () => resolve({ ws, closed })
        ws.onerror = () => reject(new Error('ws error'))
      })
    const a = await open(one.bearer)
    const c = await open(two.bearer)
    await b.request('/admin/devices/revoke', { method: 'POST', json: { id: one.id } })
    expect(await a.closed).toEqual({ code: 1008, reason: 'device revoked' })
    expect(c.ws.readyState).toBe(WebSocket.OPEN)
    c.ws.close()
  })
})

describe('error bodies', () => {
  it('cut an echoed input to 400 characters on one line', async () => {
    const long = defineBridgePlugin({
      name: 'long',
      routes: [defineBridgeRoute({ method: 'GET', path: '/long', auth: 'none', handler: () => fail(400, `unknown thing: ${'x'.repeat(5000)}\nsecond line`) })],
    })
    b = await startBridge({ user: { plugins: [long, web] } })
    const res = await fetch(`${b.url}/long`)
    expect(res.status).toBe(400)
    const body = await res.text()
    expect(body).toHaveLength(400)
    expect(body.endsWith('x…')).toBe(true)
  })
})

describe('CORS', () => {
  it('answers preflights for listed origins only and never allows credentials', async () => {
    b = await startBridge({ env: { BRIDGE_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173/' } })
    const pre = (origin: string) =>
      fetch(`${b!.url}/snapshot`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } })
    for (const origin of ['https://app.example.com', 'http://localhost:5173', 'https://herdr-bridge.github.io']) {
      const res = await pre(origin)
      expect(res.status).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe(origin)
      expect(res.headers.get('access-control-allow-headers')).toBe('Authorization,Content-Type')
      expect(res.headers.get('access-control-allow-credentials')).toBeNull()
    }
    const bad = await pre('https://evil.example.com')
    expect(bad.status).toBe(403)
    expect(bad.headers.get('access-control-allow-origin')).toBeNull()
    expect(await bad.text()).toBe('origin https://evil.example.com is not allowed: add it to transport.allowed_origins')
    // The actual request from a listed origin carries Allow-Origin; an unlisted one does not.
    const ok = await b.request('/info', { headers: { origin: 'https://app.example.com' } })
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    const no = await b.request('/info', { headers: { origin: 'https://evil.example.com' } })
    expect(no.status).toBe(200)
    expect(no.headers.get('access-control-allow-origin')).toBeNull()
    // Error answers the handlers build carry it too, so the web app can read them.
    const denied = await fetch(`${b.url}/info`, { headers: { origin: 'https://app.example.com' } })
    expect(denied.status).toBe(401)
    expect(denied.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
  })
})

describe('config', () => {
  it('creates config.json 0600 in a 0700 dir with fresh secrets, and env wins', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'bridge-cfg-')), 'data')
    const c = loadConfig({ dir, env: {} })
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600)
    expect(c.admin_token).toMatch(/^[0-9a-f]{48}$/)
    expect(c.server_id).toMatch(/^[0-9a-f]{16}$/)
    expect(c.transport.addr).toBe('127.0.0.1:8787')
    const again = loadConfig({ dir, env: { BRIDGE_ADDR: '0.0.0.0:9999', BRIDGE_SERVER_NAME: 'desk', BRIDGE_HERDR_BIN: '/opt/herdr' } })
    expect(again.admin_token).toBe(c.admin_token)
    expect(again.server_id).toBe(c.server_id)
    expect(again.transport.addr).toBe('0.0.0.0:9999')
    expect(again.server_name).toBe('desk')
    expect(again.herdr_bin).toBe('/opt/herdr')
    // Env overrides are never written back.
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).transport).toBeUndefined()
  })

  it('refuses a corrupt config file without replacing it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-cfg-'))
    writeFileSync(join(dir, 'config.json'), '{"admin_token": ')
    expect(() => loadConfig({ dir, env: {} })).toThrow(/config file .*config\.json is not valid JSON/)
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"admin_token": ')
  })

  // The notify section's keys are checked by the plugins that read them (tests/notify/settings.test.ts).
  it('refuses a config key of the wrong type in one line naming the key, without replacing the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-cfg-'))
    for (const [body, want] of [
      ['{"transport": {"addr": 8787}}', 'transport.addr: Invalid type: Expected string but received 8787'],
      ['{"transport": {"mode": "tunnel"}}', 'transport.mode: want "direct" or "relay"'],
      ['{"transport": {"allowed_origins": "https://a.example"}}', 'transport.allowed_origins: Invalid type: Expected Array but received "https://a.example"'],
      ['[]', '(the file): want a JSON object'],
      ['{"transport": ["x"]}', 'transport: want a JSON object'],
    ]) {
      writeFileSync(join(dir, 'config.json'), body)
      expect(() => loadConfig({ dir, env: {} })).toThrow(`config file ${join(dir, 'config.json')}: ${want}; fix or remove the key, the file was left untouched`)
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(body)
    }
    // Unset (null) keys and keys the table does not list are accepted.
    writeFileSync(join(dir, 'config.json'), '{"server_name": null, "transport": {"public_url": null, "extra": 1}, "later": true}')
    expect(loadConfig({ dir, env: {} }).transport.public_url).toBe('')
  })

  // FCM's `push` section is read by plugins/notify-fcm/settings.ts (the plugin and `bridge push`), in the same words.
  it("refuses a wrong type in FCM's push section in one line naming the key, without replacing the file", () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-cfg-'))
    // An initialised file (token and id present), so loading the core's keys writes nothing either.
    const ids = '"admin_token": "0123456789abcdef0123", "server_id": "s1"'
    for (const [body, want] of [
      [`{${ids}, "push": {"android_channels": {"done": 5}}}`, 'push.android_channels.done: Invalid type: Expected string but received 5'],
      [`{${ids}, "push": {"android_channels": "quiet"}}`, 'push.android_channels: want a JSON object'],
    ]) {
      writeFileSync(join(dir, 'config.json'), body)
      expect(() => fcmSettings(loadConfig({ dir, env: {} }), {})).toThrow(`config file ${join(dir, 'config.json')}: ${want}; fix or remove the key, the file was left untouched`)
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(body)
    }
    writeFileSync(join(dir, 'config.json'), '{"push": {"android_channels": {"blocked": " alerts ", "done": ""}}}')
    expect(fcmSettings(loadConfig({ dir, env: {} }), {}).android_channels).toEqual({ blocked: 'alerts', done: undefined })
  })

  it('refuses a corrupt device registry at start-up with a clear message', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bridge-home-'))
    const dataDir = join(home, '.herdr-bridge')
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(join(dataDir, 'devices.json'), '[{"id":"ab')
    await expect(startBridge({ home, dataDir })).rejects.toThrow(/device registry \(devices\.json in the data dir\) is not valid JSON/)
    expect(readFileSync(join(dataDir, 'devices.json'), 'utf8')).toBe('[{"id":"ab')
    rmSync(home, { recursive: true, force: true })
  })
})

describe('loader', () => {
  it('refuses a route claimed by two plugins, naming both', () => {
    const a = defineBridgePlugin({ name: 'alpha', routes: [defineBridgeRoute({ method: 'GET', path: '/x', auth: 'none', handler: () => 1 })] })
    const c = defineBridgePlugin({ name: 'beta', routes: [defineBridgeRoute({ method: 'GET', path: '/x', auth: 'none', handler: () => 2 })] })
    expect(() => loadPlugins([a, c])).toThrow('route GET /x is claimed by both plugin alpha and plugin beta')
  })
})

describe('unknown paths', () => {
  it('answer 404 not found for a method the catch-all page does not serve', async () => {
    b = await startBridge()
    const res = await b.request('/aprove', { method: 'POST', json: { agent: 'w1:p1', seq: 1 } })
    expect(res.status).toBe(404)
    expect(await res.text()).toBe('not found')
  })
})

describe('web page', () => {
  it('serves the embedded page at / and unlisted paths without auth', async () => {
    b = await startBridge()
    for (const path of ['/', '/some/unlisted/path']) {
      const res = await fetch(b.url + path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/html/)
      expect(await res.text()).toMatch(/<title>[^<]*herdr/)
    }
  })
})

describe('validation', () => {
  it('hands a handler only the query and body its schemas declare', async () => {
    b = await startBridge({ user: { plugins: [pairing, probe().plugin, web] } })
    const res = await b.request('/probe/echo?pane=w1:p1&extra=1', { method: 'POST', json: { pane: 'w1:p1' } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ query: {}, body: {} })
    const bad = await b.request('/probe/echo', { method: 'POST', body: '{"pane":', headers: { 'content-type': 'application/json' } })
    expect(bad.status).toBe(400)
    expect(await bad.text()).toBe('body is not valid JSON')
  })
})

describe('audit log', () => {
  it('records changing requests with actor, route, target and status, never the text', async () => {
    const p = probe()
    b = await startBridge({ user: { plugins: [pairing, p.plugin, web] } })
    const d = await b.pair('auditor')
    await b.request('/probe', { method: 'POST', token: d.bearer, json: { pane: 'work/w1:p2', text: 'secret words' } })
    await b.request('/admin/devices/revoke', { method: 'POST', json: { id: d.id } })
    await b.bridge.close()
    const lines = readFileSync(join(b.dataDir, 'audit.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const routes = lines.map((l) => `${l.route} ${l.status}`)
    expect(routes).toEqual(['POST /admin/pairing 200', 'POST /pair 200', 'POST /probe 200', 'POST /admin/devices/revoke 200'])
    expect(lines[2]).toMatchObject({ device: d.id, pane: 'work/w1:p2', text_length: 12, status: 200 })
    expect(readFileSync(join(b.dataDir, 'audit.log'), 'utf8')).not.toContain('secret words')
    expect(lines[1].device).toBe('-')
    expect(lines[3].device).toBe('admin')
    b = undefined
  })
})

describe('health', () => {
  it('answers /healthz always and /readyz 503 without herdr', async () => {
    b = await startBridge()
    const h = await fetch(`${b.url}/healthz`)
    expect(h.status).toBe(200)
    expect(await h.json()).toEqual({ ok: true })
    // Without a credential the reason is generic; a paired device or the admin sees the socket.
    const anonymous = await fetch(`${b.url}/readyz`)
    expect(anonymous.status).toBe(503)
    expect(await anonymous.json()).toEqual({ ok: false, sessions: [], reason: expect.stringMatching(/^no herdr session answers/) })
    const r = await fetch(`${b.url}/readyz`, { headers: { authorization: `Bearer ${b.adminToken}` } })
    expect(r.status).toBe(503)
    // The reason names the socket it tried, in one line, and what to do.
    const body = await r.json()
    expect(body).toEqual({
      ok: false,
      sessions: [],
      reason: expect.stringMatching(/^cannot reach herdr at \/\S+herdr\.sock: ENOENT; start herdr on this machine \(or point the bridge at it\) and this clears by itself$/),
    })
  })
})

describe('API document', () => {
  it('serves OpenAPI 3.1 without auth, with schemas from the manifests', async () => {
    b = await startBridge()
    const res = await fetch(`${b.url}/openapi.json`)
    expect(res.status).toBe(200)
    const doc = (await res.json()) as OpenApiDoc
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.paths['/pair'].post.requestBody?.content?.['application/json'].schema?.required).toEqual(['code'])
    expect(doc.paths['/info'].get.responses['200'].content['application/json'].schema.properties?.version).toEqual({ type: 'number' })
    expect(doc.paths['/info'].get.security).toEqual([{ bearer: [] }])
  })
})
