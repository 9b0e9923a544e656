import { afterEach, describe, expect, it } from 'vitest'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import type { GetResponses, PostResponses } from '../../plugins/web/app/src/lib/api-types.ts'

let b: TestBridge
afterEach(async () => {
  await b?.close()
})

async function code(bridge: TestBridge): Promise<string> {
  const res = await bridge.request('/admin/pairing', { method: 'POST' })
  expect(res.status).toBe(200)
  const body = (await res.json()) as { code: string; url: string }
  expect(body.code).toMatch(/^[0-9a-f]{8}$/)
  expect(body.url).toBe(bridge.url)
  return body.code
}

describe('pairing', () => {
  it('pairs with a fresh code and the bearer then works', async () => {
    b = await startBridge()
    const c = await code(b)
    const res = await b.request('/pair', { method: 'POST', token: null, json: { code: c, device_name: 'pixel', push_token: 'tok-1', extra: 'ignored' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const d = (await res.json()) as PostResponses['/pair']
    expect(d.id).toMatch(/^[0-9a-f]{8}$/)
    expect(d.bearer).toMatch(/^[0-9a-f]{64}$/)
    expect(d.name).toBe('pixel')
    const info = await b.request('/info', { token: d.bearer })
    expect(info.status).toBe(200)
    expect(await info.json()).toEqual({ server_id: b.bridge.ctx.config.server_id, server_name: b.bridge.ctx.config.server_name, version: 7 })
    expect(b.bridge.ctx.devices.get(d.id)?.push_token).toBe('tok-1')
  })

  it('accepts fcm_token as the push token and defaults the name', async () => {
    b = await startBridge()
    const res = await b.request('/pair', { method: 'POST', token: null, json: { code: await code(b), fcm_token: 'fcm-9' } })
    const d = (await res.json()) as PostResponses['/pair']
    expect(d.name).toBe('device')
    expect(b.bridge.ctx.devices.get(d.id)?.push_token).toBe('fcm-9')
  })

  it('refuses an unknown code with 403 and creates no device', async () => {
    b = await startBridge()
    const res = await b.request('/pair', { method: 'POST', token: null, json: { code: 'deadbeef' } })
    expect(res.status).toBe(403)
    expect(await res.text()).toBe('invalid or expired pairing code')
    expect(b.bridge.ctx.devices.list()).toEqual([])
  })

  it('refuses a reused code', async () => {
    b = await startBridge()
    const c = await code(b)
    expect((await b.request('/pair', { method: 'POST', token: null, json: { code: c } })).status).toBe(200)
    const again = await b.request('/pair', { method: 'POST', token: null, json: { code: c } })
    expect(again.status).toBe(403)
    expect(b.bridge.ctx.devices.list()).toHaveLength(1)
  })

  it('refuses a code older than five minutes', async () => {
    let now = 1_700_000_000_000
    b = await startBridge({ now: () => now })
    const c = await code(b)
    now += 5 * 60_000 + 1
    const res = await b.request('/pair', { method: 'POST', token: null, json: { code: c } })
    expect(res.status).toBe(403)
  })

  it('accepts a code just inside five minutes', async () => {
    let now = 1_700_000_000_000
    b = await startBridge({ now: () => now })
    const c = await code(b)
    now += 5 * 60_000 - 1
    expect((await b.request('/pair', { method: 'POST', token: null, json: { code: c } })).status).toBe(200)
  })

  it('answers 400 for a body without a code', async () => {
    b = await startBridge()
    const res = await b.request('/pair', { method: 'POST', token: null, json: { device_name: 'x' } })
    expect(res.status).toBe(400)
    expect(await res.text()).toMatch(/^code: /)
    const nulls = await b.request('/pair', { method: 'POST', token: null, json: { code: await code(b), device_name: null, fcm_token: null } })
    expect(nulls.status).toBe(200)
    expect(((await nulls.json()) as PostResponses['/pair']).name).toBe('device')
    const bad = await b.request('/pair', { method: 'POST', token: null, body: '{not json', headers: { 'content-type': 'application/json' } })
    expect(bad.status).toBe(400)
    expect(await bad.text()).toBe('body is not valid JSON')
  })

  it('limits failed attempts per address with 429 and Retry-After', async () => {
    let now = 1_700_000_000_000
    b = await startBridge({ now: () => now })
    for (let i = 0; i < 10; i++) {
      expect((await b.request('/pair', { method: 'POST', token: null, json: { code: `0000000${i}` } })).status).toBe(403)
    }
    const c = await code(b)
    const limited = await b.request('/pair', { method: 'POST', token: null, json: { code: c } })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('60')
    // The valid code was not consumed by the refused attempt.
    now += 60_001
    expect((await b.request('/pair', { method: 'POST', token: null, json: { code: c } })).status).toBe(200)
  })
})

describe('devices', () => {
  it('lists devices without bearers and revokes one at once', async () => {
    b = await startBridge()
    const one = await b.pair('one')
    const two = await b.pair('two')
    const list = (await (await b.request('/admin/devices')).json()) as GetResponses['/admin/devices']
    expect(list.devices.map((d) => d.name)).toEqual(['one', 'two'])
    expect(JSON.stringify(list)).not.toContain(one.bearer)
    const rev = await b.request('/admin/devices/revoke', { method: 'POST', json: { id: one.id } })
    expect(rev.status).toBe(200)
    expect(await rev.json()).toEqual({ revoked: true, id: one.id, name: 'one' })
    expect((await b.request('/info', { token: one.bearer })).status).toBe(401)
    expect((await b.request('/info', { token: two.bearer })).status).toBe(200)
  })

  it('answers 404 for an unknown device id', async () => {
    b = await startBridge()
    const res = await b.request('/admin/devices/revoke', { method: 'POST', json: { id: 'nope' } })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ error: 'no device nope' })
  })

  it('keeps admin routes for the admin token only', async () => {
    b = await startBridge()
    const d = await b.pair()
    for (const [method, path] of [
      ['GET', '/admin/devices'],
      ['POST', '/admin/pairing'],
      ['POST', '/admin/devices/revoke'],
    ] as const) {
      const res = await b.request(path, { method, token: d.bearer, json: method === 'POST' ? { id: d.id } : undefined })
      expect(res.status).toBe(401)
      expect(await res.text()).toBe('unauthorized')
    }
    expect(b.bridge.ctx.devices.list()).toHaveLength(1)
  })

  it('accepts the admin token in ?token= on /admin/pairing only', async () => {
    b = await startBridge()
    const ok = await b.request(`/admin/pairing?token=${b.adminToken}`, { method: 'POST', token: null })
    expect(ok.status).toBe(200)
    const no = await b.request(`/admin/devices?token=${b.adminToken}`, { token: null })
    expect(no.status).toBe(401)
  })

  it('registers a push token for the calling device, and a "web" device for the admin token', async () => {
    b = await startBridge()
    const d = await b.pair()
    const res = await b.request('/register-token', { method: 'POST', token: d.bearer, json: { token: 'new-token' } })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true })
    expect(b.bridge.ctx.devices.get(d.id)?.push_token).toBe('new-token')
    await b.request('/register-token', { method: 'POST', json: { token: 'browser' } })
    await b.request('/register-token', { method: 'POST', json: { token: 'browser-2' } })
    const web = b.bridge.ctx.devices.list().filter((x) => x.name === 'web')
    expect(web).toHaveLength(1)
    expect(web[0].push_token).toBe('browser-2')
  })

  it('persists devices across a restart', async () => {
    b = await startBridge()
    const d = await b.pair('kept')
    const home = b.home
    await b.bridge.close()
    const again = await startBridge({ home, dataDir: b.dataDir })
    try {
      expect((await again.request('/info', { token: d.bearer })).status).toBe(200)
    } finally {
      await again.close()
    }
  })
})
