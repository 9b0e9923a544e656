import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRelayHub, type RelayHub } from '../../plugins/suggestions/relay.ts'

/**
 * Cookies ignore ports: a browser that opened two previews on one host sends both relays'
 * access cookies to each relay. Each relay strips every relay cookie before forwarding, so no
 * dev server receives the secret that opens another relay.
 */
function devServer(): Server {
  return createServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ cookie: req.headers.cookie ?? null }))
  })
}

describe('preview relays and each other’s cookies', () => {
  let hub: RelayHub
  const devs = [devServer(), devServer()]
  const ports: number[] = []
  beforeAll(async () => {
    for (const d of devs) {
      await new Promise<void>((ok) => d.listen(0, '127.0.0.1', () => ok()))
      ports.push((d.address() as AddressInfo).port)
    }
    hub = createRelayHub({ listenHost: '127.0.0.1' })
  })
  afterAll(async () => {
    await hub.close()
    for (const d of devs) {
      d.closeAllConnections()
      d.close()
    }
  })

  /** Opens a relay for `port` and exchanges its one-time token for its cookie (`name=value`). */
  async function open(port: number) {
    const url = new URL((await hub.urlFor({ bind: '127.0.0.1', port }, '127.0.0.1'))!)
    const first = await fetch(`http://${url.host}/?bridge_preview=${url.searchParams.get('bridge_preview')}`, { redirect: 'manual' })
    expect(first.status).toBe(302)
    return { base: `http://${url.host}`, cookie: first.headers.get('set-cookie')!.split(';')[0] }
  }

  it("a dev server never sees another relay's cookie, and that cookie opens the other relay only", async () => {
    const a = await open(ports[0])
    const b = await open(ports[1])
    expect(a.cookie.split('=')[0]).not.toBe(b.cookie.split('=')[0])
    // What a browser sends to relay A once both previews are open: both cookies and the app's own.
    const r = await fetch(`${a.base}/`, { headers: { cookie: `${a.cookie}; ${b.cookie}; theme=dark; bridge_preview=stale` } })
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({ cookie: 'theme=dark' })
    const r2 = await fetch(`${b.base}/`, { headers: { cookie: `${b.cookie}; ${a.cookie}` } })
    expect(await r2.json()).toEqual({ cookie: null })
  })
})
