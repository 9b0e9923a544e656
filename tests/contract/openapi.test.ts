// The published API contract (issue 13): GET /openapi.json lists every route the live bridge
// serves, every route documents its 200 body, and real responses match what is documented —
// both the valibot schema in the manifest and the JSON Schema the document publishes for it.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { queryParameters, undocumentedRoutes } from '../../plugins/openapi/build.ts'
import { defaultPlugins } from '../../bridge.config.ts'
import type { AnyPlugin, PluginEntry } from '../../core/plugin.ts'
import { createConformance, type JsonSchemaNode, type OpenApiDoc, type RouteBodies } from './conform.ts'

let b: TestBridge
let doc: OpenApiDoc

const NOW = Date.now()
const TIMELINE = [
  { ts: NOW - 60_000, pane: 'default/w1-p1', agent: 'claude', session: 'default', workspace: 'default/w1', to: 'working' },
  { ts: NOW - 30_000, pane: 'default/w1-p1', agent: 'claude', session: 'default', workspace: 'default/w1', title: 'fix tests', from: 'working', to: 'blocked', prev_ms: 30_000 },
]
const WEB_CONFIG = { apiKey: 'k', authDomain: 'a.example', projectId: 'p', storageBucket: 'b', messagingSenderId: '1', appId: 'x', vapidKey: 'v' }

let home: string

beforeAll(async () => {
  // No herdr: only routes that answer without one are exercised here; herdr-backed routes are
  // checked against the same schemas by their own suites through the simulator.
  home = mkdtempSync(join(tmpdir(), 'bridge-contract-'))
  const dataDir = join(home, '.herdr-bridge')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  writeFileSync(join(dataDir, 'timeline.json'), JSON.stringify(TIMELINE))
  writeFileSync(join(dataDir, 'firebase-web.json'), JSON.stringify(WEB_CONFIG))
  b = await startBridge({ home })
  const res = await b.request('/openapi.json', { token: null })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  doc = (await res.json()) as OpenApiDoc
})

afterAll(async () => {
  await b?.close()
  if (home) rmSync(home, { recursive: true, force: true })
})

const docPath = (p: string) => (p === '/**' ? '/{any}' : p)

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document with bearer security', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.title).toBe('herdr-bridge')
    expect(typeof doc.info.version).toBe('string')
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' })
  })

  it('uses the JSON Schema 2020-12 dialect of OpenAPI 3.1 (no 3.0-only keywords)', () => {
    const bad: string[] = []
    const walk = (x: unknown, at: string) => {
      if (!x || typeof x !== 'object') return
      for (const [k, val] of Object.entries(x)) {
        if (k === 'nullable' || k === '$schema') bad.push(`${at}.${k}`)
        walk(val, `${at}.${k}`)
      }
    }
    walk(doc.paths, 'paths')
    expect(bad).toEqual([])
  })

  it('lists every HTTP route and WebSocket route the live bridge serves, and nothing else', () => {
    const { routes, websockets } = b.bridge.routes
    const served = [...routes].flatMap(([path, byMethod]) => [...byMethod.keys()].map((m) => `${m.toLowerCase()} ${docPath(path)}`)).sort()
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`))
      .sort()
    expect(documented).toEqual(served)
    expect(Object.keys(doc['x-websockets']).sort()).toEqual([...websockets.keys()].sort())
    expect([...websockets.keys()].sort()).toEqual(['/agent-transcript', '/attach', '/events'])
  })

  it('marks authenticated routes with the bearer scheme and a 401', () => {
    for (const [path, byMethod] of b.bridge.routes.routes)
      for (const [m, r] of byMethod) {
        const op = doc.paths[docPath(path)][m.toLowerCase()]
        const authed = r.auth === 'device' || r.auth === 'admin'
        expect({ route: `${m} ${path}`, security: op.security ?? null, has401: '401' in op.responses }).toEqual({
          route: `${m} ${path}`,
          security: authed ? [{ bearer: [] }] : null,
          has401: authed,
        })
      }
  })

  it('documents the 200 body and a summary of every route', () => {
    // The CI check: a route without a documented shape fails here, by name.
    expect(undocumentedRoutes(b.bridge.routes)).toEqual([])
  })

  it('gives every WebSocket route its summary, query parameters and frames both ways', () => {
    for (const [path, w] of b.bridge.routes.websockets) {
      const ws = doc['x-websockets'][path]
      expect(ws.summary, path).toBe(w.describe)
      expect(Object.keys(ws.query ?? {}), path).toContain('token')
      expect(Object.keys(ws.serverFrames ?? {}).length, path).toBeGreaterThan(0)
      expect(Object.keys(ws.clientFrames ?? {}).length, path).toBeGreaterThan(0)
    }
  })
})

describe('real responses match the documented shapes', () => {
  const conforms = <M extends keyof RouteBodies, P extends keyof RouteBodies[M] & string>(method: M, path: P, res: Response) => createConformance(b, doc)(method, path, res)

  it('the check fails a body that breaks the documented shape', async () => {
    const wrong = () => new Response(JSON.stringify({ server_id: 'x', server_name: 'y', version: 'seven' }), { status: 200 })
    await expect(conforms('GET', '/info', wrong())).rejects.toThrow(/valibot/)
    // The published JSON Schema on its own rejects it too.
    const schema = doc.paths['/info'].get.responses['200'].content['application/json'].schema
    expect(schema).toEqual(expect.objectContaining({ type: 'object', required: ['server_id', 'server_name', 'version'] }))
    expect(schema.properties?.version).toEqual({ type: 'number' })
  })

  it('GET /healthz', async () => {
    expect(await conforms('GET', '/healthz', await b.request('/healthz', { token: null }))).toEqual({ ok: true })
  })

  it('GET /info', async () => {
    const body = await conforms('GET', '/info', await b.request('/info'))
    expect(Object.keys(body).sort()).toEqual(['server_id', 'server_name', 'version'])
  })

  it('POST /admin/pairing, POST /pair, GET /admin/devices, POST /register-token, POST /admin/devices/revoke', async () => {
    const issued = await conforms('POST', '/admin/pairing', await b.request('/admin/pairing', { method: 'POST' }))
    const device = await conforms('POST', '/pair', await b.request('/pair', { method: 'POST', token: null, json: { code: issued.code, device_name: 'contract' } }))
    expect(device.name).toBe('contract')
    await conforms('POST', '/register-token', await b.request('/register-token', { method: 'POST', token: device.bearer, json: { token: 'fcm-1' } }))
    const list = await conforms('GET', '/admin/devices', await b.request('/admin/devices'))
    expect(list.devices).toEqual([expect.objectContaining({ id: device.id, name: 'contract', has_push_token: true })])
    expect(await conforms('POST', '/admin/devices/revoke', await b.request('/admin/devices/revoke', { method: 'POST', json: { id: device.id } }))).toEqual({
      revoked: true,
      id: device.id,
      name: 'contract',
    })
  })

  it('GET /timeline', async () => {
    const body = await conforms('GET', '/timeline', await b.request('/timeline?limit=5'))
    expect(body).toEqual({ entries: [...TIMELINE].reverse(), limit: 5 })
  })

  it('GET /push-config and GET /firebase-config', async () => {
    expect(await conforms('GET', '/push-config', await b.request('/push-config', { token: null }))).toEqual(WEB_CONFIG)
    expect(await conforms('GET', '/firebase-config', await b.request('/firebase-config', { token: null }))).toEqual(WEB_CONFIG)
  })

  it('GET /openapi.json documents itself', async () => {
    await conforms('GET', '/openapi.json', await b.request('/openapi.json', { token: null }))
  })
})

describe('every parameter a route takes is in the document', () => {
  /** The keys a valibot object schema (possibly inside a pipe) declares. */
  const keysOf = (schema: unknown): string[] => {
    type Node = { type?: string; entries?: Record<string, unknown>; pipe?: Node[] } | undefined
    const s = schema as Node
    const root = s?.type === 'object' || s?.entries ? s : s?.pipe?.[0]
    return Object.keys(root?.entries ?? {})
  }

  it('lists each HTTP route’s declared query parameters and ?token=, and nothing else', () => {
    for (const [path, byMethod] of b.bridge.routes.routes)
      for (const [m, r] of byMethod) {
        const op = doc.paths[docPath(path)][m.toLowerCase()]
        const listed = ((op.parameters ?? []) as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name)
        const taken = [...keysOf(r.query), ...(r.queryToken ? ['token'] : [])]
        expect({ route: `${m} ${path}`, listed: [...listed].sort() }).toEqual({ route: `${m} ${path}`, listed: [...taken].sort() })
      }
  })

  it('lists each WebSocket route’s declared query parameters and ?token=', () => {
    for (const [path, w] of b.bridge.routes.websockets) {
      const taken = [...keysOf(w.query), ...(w.queryToken ? ['token'] : [])]
      expect({ path, listed: Object.keys(doc['x-websockets'][path].query).sort() }).toEqual({ path, listed: taken.sort() })
    }
  })

  it('documents the body of every route that reads one', () => {
    for (const [path, byMethod] of b.bridge.routes.routes)
      for (const [m, r] of byMethod) {
        if (!r.body) continue
        const op = doc.paths[docPath(path)][m.toLowerCase()]
        const props = Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {})
        expect({ route: `${m} ${path}`, props: props.sort() }).toEqual({ route: `${m} ${path}`, props: keysOf(r.body).sort() })
      }
  })

  it('no plugin reads the request query behind the schemas’ back', () => {
    // The core hands a handler only the parameters its schema declares; reading the URL's
    // query directly would take a parameter the document does not list.
    const root = join(__dirname, '../../plugins')
    const offenders: string[] = []
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name)
        if (e.isDirectory()) {
          if (e.name !== 'app' && e.name !== 'dist' && e.name !== 'node_modules') walk(p)
        } else if (e.name.endsWith('.ts') && /searchParams\.get\(|getQuery\(|getValidatedQuery\(/.test(readFileSync(p, 'utf8'))) offenders.push(p.slice(root.length + 1))
      }
    }
    walk(root)
    // The preview relay reads its own one-time token on its own listener, not a bridge route.
    expect(offenders.filter((p) => p !== join('suggestions', 'relay.ts'))).toEqual([])
  })
})

describe('an undeclared parameter never reaches a handler', () => {
  const UNDECLARED = 'zz_undeclared'
  /** What each handler (or WebSocket accept) was handed, by `METHOD path`. */
  const seen = new Map<string, { query: Record<string, unknown>; body: unknown }>()
  let spied: TestBridge

  beforeAll(async () => {
    // The default plugins, with every handler and accept replaced by one that records its input
    // and does no work: each route is then reached with nothing but valid-looking parameters.
    const record = (key: string, query: Record<string, unknown>, body?: unknown) => void seen.set(key, { query, body })
    const plugins = defaultPlugins.map((entry): PluginEntry => {
      const [def, options] = Array.isArray(entry) ? entry : [entry, undefined]
      const copy: AnyPlugin = {
        ...def,
        routes: def.routes?.map((r) => ({ ...r, handler: ({ query, body }) => (record(`${r.method} ${r.path}`, query, body), null) })),
        websockets: def.websockets?.map((w) => ({ ...w, accept: ({ query }) => (record(`WS ${w.path}`, query), new Response(null, { status: 204 })) })),
      }
      return options === undefined ? copy : [copy, options]
    })
    spied = await startBridge({ user: { plugins } })
  })
  afterAll(() => spied?.close())

  /** A value of the documented JSON Schema: the first enum member, required properties only. */
  const example = (schema: unknown): unknown => {
    const s = schema as JsonSchemaNode | undefined
    if (!s) return {}
    if (s.enum) return s.enum[0]
    if (s.anyOf) return example(s.anyOf[0])
    if (s.format === 'uri') return 'https://push.example/1'
    if (s.type === 'object') return Object.fromEntries(Object.entries(s.properties ?? {}).flatMap(([k, p]) => (s.required?.includes(k) ? [[k, example(p)]] : [])))
    return { number: 1, integer: 1, boolean: true, array: [] }[s.type as string] ?? '1'
  }
  /** Bodies whose checks JSON Schema cannot state (a P-256 key's length and first byte). */
  const BODIES: Record<string, object> = {
    'POST /webpush/subscribe': {
      endpoint: 'https://push.example/1',
      keys: { p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') },
    },
  }
  const queryOf = (params: { name: string; schema: unknown }[]) =>
    new URLSearchParams([...params.filter((p) => p.name !== 'token').map((p) => [p.name, String(example(p.schema))]), [UNDECLARED, '1']])

  it('HTTP routes get only the query parameters and body keys the document lists', async () => {
    for (const [path, byMethod] of spied.bridge.routes.routes)
      for (const [m, r] of byMethod) {
        const route = `${m} ${path}`
        const op = doc.paths[docPath(path)][m.toLowerCase()]
        const documented = ((op.parameters ?? []) as { name: string; in: string; schema: unknown }[]).filter((p) => p.in === 'query')
        const params = documented.map((p) => p.name)
        const schema = op.requestBody?.content?.['application/json']?.schema
        const json = m !== 'GET' && r.bodyType !== 'raw' ? { ...(BODIES[route] ?? (example(schema) as object)), [UNDECLARED]: 1 } : undefined
        const res = await spied.request(`${path.replace('**', 'any')}?${queryOf(documented)}`, { method: m, json, body: r.bodyType === 'raw' ? 'bytes' : undefined })
        const got = seen.get(route)
        expect({ route, status: res.status, refused: got ? '' : await res.text() }).toEqual({ route, status: 204, refused: '' })
        expect({ route, query: Object.keys(got!.query).filter((k) => !params.includes(k)) }).toEqual({ route, query: [] })
        const keys = got!.body && typeof got!.body === 'object' ? Object.keys(got!.body) : []
        expect({ route, body: keys.filter((k) => !(k in (schema?.properties ?? {}))) }).toEqual({ route, body: [] })
      }
  })

  it('WebSocket routes get only the query parameters the document lists', async () => {
    for (const [path, w] of spied.bridge.routes.websockets) {
      // The document lists a WebSocket's parameters by name; their schemas come from the same builder.
      const params = Object.keys(doc['x-websockets'][path].query)
      const res = await spied.request(`${path}?${queryOf(w.query ? queryParameters(w.query) : [])}`)
      const got = seen.get(`WS ${path}`)
      expect({ path, status: res.status, refused: got ? '' : await res.text() }).toEqual({ path, status: 204, refused: '' })
      expect({ path, query: Object.keys(got!.query).filter((k) => !params.includes(k)) }).toEqual({ path, query: [] })
    }
  })
})
