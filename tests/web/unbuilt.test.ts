// Without a built client (no dist/), the bridge still starts and GET / says how to build it.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import userConfig from '../../bridge.config.ts'
import web from '../../plugins/web/index.ts'

let bridge: TestBridge

beforeAll(async () => {
  const plugins = userConfig.plugins.map((p) => ((Array.isArray(p) ? p[0] : p).name === 'web' ? ([web, { dist: join(tmpdir(), 'no-such-web-dist') }] as [typeof web, unknown]) : p))
  bridge = await startBridge({ user: { ...userConfig, plugins } })
})

afterAll(async () => {
  await bridge?.close()
})

it('serves a page saying to run npm run build:web, and 404 for assets', async () => {
  for (const path of ['/', '/agent/x']) {
    const res = await fetch(bridge.url + path)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expect(await res.text()).toContain('<code>npm run build:web</code>')
  }
  for (const path of ['/assets/index.js', '/sw.js', '/firebase-messaging-sw.js', '/manifest.webmanifest'])
    expect([path, (await fetch(bridge.url + path)).status]).toEqual([path, 404])
  // The API is unaffected.
  expect((await bridge.request('/info')).status).toBe(200)
})
