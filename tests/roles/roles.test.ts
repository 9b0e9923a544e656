// Device roles, end to end against the real bridge and the herdr simulator: a viewer is refused
// every write route (403, before any work) and can still watch; the default role keeps its rights
// and is refused only the owner routes; an owner can call everything. The sweep reads the routes
// from /openapi.json, so a route added later is covered without editing this file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execa } from 'execa'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { REPO_ROOT } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

type Device = GetResponses['/devices']['devices'][number]

let st: Stack
let pane: string
const bearer: Record<'viewer' | 'default' | 'owner', string> = { viewer: '', default: '', owner: '' }
const ids: Record<string, string> = {}

async function pairAs(role: 'viewer' | 'default' | 'owner', name: string) {
  const issued = await st.bridge.request('/admin/pairing', { method: 'POST', json: { role } })
  expect(issued.status).toBe(200)
  const { code } = await issued.json()
  const res = await st.bridge.request('/pair', { method: 'POST', token: null, json: { code, device_name: name } })
  expect(res.status).toBe(200)
  const d = await res.json()
  expect(d.role).toBe(role)
  return d as { id: string; bearer: string }
}

/** The HTTP status line's code of a WebSocket upgrade (101 when it opens). */
async function upgradeStatus(path: string): Promise<number> {
  const u = new URL(st.bridge.url)
  const { connect } = await import('node:net')
  const sock = connect(Number(u.port), u.hostname)
  const head = await new Promise<string>((resolve, reject) => {
    let buf = ''
    sock.on('data', (d) => {
      buf += d.toString('latin1')
      if (buf.includes('\r\n')) resolve(buf)
    })
    sock.on('error', reject)
    sock.write(
      `GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    )
  })
  sock.destroy()
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)
}

const screen = async () => (await st.sim.request('pane.read', { pane_id: pane, source: 'visible', format: 'text' })).read.text as string

beforeAll(async () => {
  st = await startStack()
  pane = (await st.sim.request('sim.create_agent_pane', { kind: 'claude', cwd: st.home, label: 'roles', script: { start: 'idle', default_reply: 'ok', work_ms: 100 } })).pane
    .pane_id
  for (const role of ['viewer', 'default', 'owner'] as const) {
    const d = await pairAs(role, `${role}-phone`)
    bearer[role] = d.bearer
    ids[role] = d.id
  }
})
afterAll(async () => {
  await st?.close()
})

interface Op {
  method: string
  path: string
  role: string
}

async function deviceRoutes(): Promise<Op[]> {
  const doc = await (await fetch(st.bridge.url + '/openapi.json')).json()
  const ops: Op[] = []
  for (const [path, byMethod] of Object.entries<Record<string, { 'x-role'?: string }>>(doc.paths))
    for (const [method, op] of Object.entries(byMethod)) if (op['x-role']) ops.push({ method: method.toUpperCase(), path, role: op['x-role'] })
  return ops
}

/** Calls a route with an empty JSON body (or none for GET): what matters is whether the role check lets it through. */
async function call(op: Op, token: string): Promise<Response> {
  const init: RequestInit = { method: op.method, headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) }
  if (op.method !== 'GET') {
    init.headers = { ...init.headers, 'content-type': 'application/json' }
    init.body = '{}'
  }
  return fetch(st.bridge.url + op.path, init)
}

describe('device roles', () => {
  it('documents every device route with the least role that may call it, and the roles themselves', async () => {
    const ops = await deviceRoutes()
    expect(ops.length).toBeGreaterThan(40)
    // Every write needs the default role except the device's own alerts and read marks.
    const viewerWrites = ops.filter((o) => o.method !== 'GET' && o.role === 'viewer').map((o) => `${o.method} ${o.path}`)
    expect(viewerWrites.sort()).toEqual([
      'POST /notify/channels',
      'POST /notify/mute',
      'POST /notify/quiet',
      'POST /notify/test',
      'POST /notify/unmute',
      'POST /register-token',
      'POST /seen',
      'POST /webpush/subscribe',
      'POST /webpush/unsubscribe',
    ])
    expect(
      ops
        .filter((o) => o.role === 'owner')
        .map((o) => `${o.method} ${o.path}`)
        .sort(),
    ).toEqual(['GET /devices', 'POST /devices/rename', 'POST /devices/revoke'])
    for (const o of ops) if (o.method === 'GET' && o.path !== '/devices') expect([o.path, o.role]).toEqual([o.path, 'viewer'])
    const doc = await (await fetch(st.bridge.url + '/openapi.json')).json()
    expect(Object.keys(doc['x-roles'])).toEqual(['description', 'viewer', 'default', 'owner'])
    expect(doc.paths['/send'].post.responses['403'].description).toBe("the device's role is below `default`")
    expect(doc['x-websockets']['/attach']['x-role']).toEqual({ 'mode=observe': 'viewer', otherwise: 'default' })
    expect(doc['x-websockets']['/events']['x-role']).toBe('viewer')
  })

  it('refuses a viewer every write route with 403 before any work, and lets it call every read', async () => {
    const refused: string[] = []
    const passed: string[] = []
    for (const op of await deviceRoutes()) {
      const res = await call(op, bearer.viewer)
      const body = await res.text()
      if (op.role === 'viewer') {
        expect([op.method, op.path, res.status]).not.toEqual([op.method, op.path, 403])
        passed.push(`${op.method} ${op.path}`)
      } else {
        // The role is checked before the body: an empty body would otherwise be a 400.
        expect([op.method, op.path, res.status]).toEqual([op.method, op.path, 403])
        expect(body).toMatch(op.role === 'owner' ? /only an owner device may do this/ : /this device is a viewer and may only watch/)
        refused.push(`${op.method} ${op.path}`)
      }
    }
    expect(refused).toEqual(
      expect.arrayContaining([
        'POST /send',
        'POST /approve',
        'POST /agent/start',
        'POST /agent/stop',
        'POST /agent/restart',
        'POST /image',
        'POST /file',
        'POST /pane/new',
        'POST /branch-delete',
        'POST /herdr',
      ]),
    )
    expect(passed).toEqual(expect.arrayContaining(['GET /snapshot', 'GET /agent-state', 'GET /timeline', 'GET /diff', 'POST /notify/mute']))
  })

  it('types nothing into the pane for a refused viewer, and the same call works once the device is promoted', async () => {
    const res = await st.bridge.request('/send', { method: 'POST', token: bearer.viewer, json: { pane, text: 'viewer-typed\r' } })
    expect([res.status, await res.text()]).toEqual([403, 'forbidden: this device is a viewer and may only watch'])
    const snap = await st.bridge.request('/snapshot', { token: bearer.viewer })
    expect(snap.status).toBe(200)
    expect(await screen()).not.toContain('viewer-typed')
    const promoted = await st.bridge.request('/admin/devices/role', { method: 'POST', json: { id: ids.viewer, role: 'default' } })
    expect(await promoted.json()).toEqual({ id: ids.viewer, name: 'viewer-phone', role: 'default' })
    const again = await st.bridge.request('/send', { method: 'POST', token: bearer.viewer, json: { pane, text: 'promoted-typed\r' } })
    expect(again.status).toBe(200)
    await until(async () => (await screen()).includes('promoted-typed'), 'the promoted device’s text on the screen')
    await st.bridge.request('/admin/devices/role', { method: 'POST', json: { id: ids.viewer, role: 'viewer' } })
    expect((await st.bridge.request('/send', { method: 'POST', token: bearer.viewer, json: { pane, text: 'x' } })).status).toBe(403)
  })

  it('lets a viewer watch over WebSockets but not take control of a terminal', async () => {
    const q = (extra: string) => `/attach?pane=${encodeURIComponent(pane)}&token=${bearer.viewer}${extra}`
    expect(await upgradeStatus(`/events?token=${bearer.viewer}`)).toBe(101)
    expect(await upgradeStatus(q('&mode=observe'))).toBe(101)
    expect(await upgradeStatus(q(''))).toBe(403)
    expect(await upgradeStatus(q('&mode=control'))).toBe(403)
    // The query schema takes the last of repeated values: every one must say observe.
    expect(await upgradeStatus(q('&mode=observe&mode=control'))).toBe(403)
    expect(await upgradeStatus(`/attach?pane=${encodeURIComponent(pane)}&token=${bearer.default}&mode=control`)).toBe(101)
  })

  it('keeps the default role as it was: everything but the owner routes', async () => {
    for (const op of await deviceRoutes()) {
      const res = await call(op, bearer.default)
      await res.arrayBuffer()
      if (op.role === 'owner') expect([op.path, res.status]).toEqual([op.path, 403])
      else expect([op.method, op.path, res.status]).not.toEqual([op.method, op.path, 403])
    }
  })

  it('lets an owner list, rename and revoke devices, and never shows a bearer', async () => {
    const list = await (await st.bridge.request('/devices', { token: bearer.owner })).json()
    expect(list.devices.map((d: Device) => [d.name, d.role])).toEqual([
      ['viewer-phone', 'viewer'],
      ['default-phone', 'default'],
      ['owner-phone', 'owner'],
    ])
    expect(JSON.stringify(list)).not.toContain(bearer.viewer)
    const me = await (await st.bridge.request('/device', { token: bearer.viewer })).json()
    expect(me).toEqual({ id: ids.viewer, name: 'viewer-phone', role: 'viewer' })
    const renamed = await st.bridge.request('/devices/rename', { method: 'POST', token: bearer.owner, json: { id: ids.default, name: 'kitchen tablet' } })
    expect(await renamed.json()).toEqual({ id: ids.default, name: 'kitchen tablet' })
    const bad = await st.bridge.request('/devices/rename', { method: 'POST', token: bearer.owner, json: { id: ids.default, name: 'a\u202eb' } })
    expect([bad.status, await bad.text()]).toEqual([400, 'name: control characters are not allowed'])
    const gone = await st.bridge.request('/devices/revoke', { method: 'POST', token: bearer.owner, json: { id: 'nope' } })
    expect(gone.status).toBe(404)
    const one = await st.bridge.pair('to-revoke')
    const rev = await st.bridge.request('/devices/revoke', { method: 'POST', token: bearer.owner, json: { id: one.id } })
    expect(await rev.json()).toEqual({ revoked: true, id: one.id, name: 'to-revoke' })
    expect((await st.bridge.request('/info', { token: one.bearer })).status).toBe(401)
  })

  it('pairs with a role from the CLI, shows the roles in `bridge devices list` and changes them with `bridge devices role`', async () => {
    const env = { ...st.bridge.env, BRIDGE_DIR: st.bridge.dataDir, BRIDGE_ADDR: new URL(st.bridge.url).host }
    const cli = (...args: string[]) => execa(process.execPath, [join(REPO_ROOT, 'cli/bin.mjs'), ...args], { env, reject: false, timeout: 60_000 })
    const bad = await cli('pair', '--role', 'boss', '--json')
    expect(bad.exitCode).not.toBe(0)
    expect(bad.stderr).toContain('bad --role "boss": want viewer (watch only), default or owner (also manages devices)')
    const issued = await cli('pair', '--role', 'viewer', '--json')
    expect(issued.exitCode).toBe(0)
    const { code } = JSON.parse(issued.stdout.trim().split('\n').at(-1)!)
    const paired = await (await st.bridge.request('/pair', { method: 'POST', token: null, json: { code, device_name: 'cli-viewer' } })).json()
    expect(paired.role).toBe('viewer')
    const table = await cli('devices', 'list')
    expect(table.stdout).toMatch(/ID\s+NAME\s+ROLE\s+PAIRED/)
    expect(table.stdout).toMatch(new RegExp(`${paired.id}\\s+cli-viewer\\s+viewer\\s`))
    const promote = await cli('devices', 'role', paired.id, 'owner')
    expect(promote.stdout).toContain(`${paired.id} (cli-viewer) is now owner`)
    expect((await st.bridge.request('/devices', { token: paired.bearer })).status).toBe(200)
    const json = JSON.parse((await cli('devices', 'list', '--json')).stdout)
    expect(json.find((d: Device) => d.id === paired.id).role).toBe('owner')
  })
})
