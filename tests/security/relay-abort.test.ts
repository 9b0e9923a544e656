import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRelayHub, type RelayHub } from '../../plugins/suggestions/relay.ts'

/**
 * A dev server that dies in the middle of a response: the relay piped the upstream body into
 * the client's response with `pipe`, which does not pass an abort on, so the client's
 * connection stayed open (a descriptor held) until the server's deadlines. The client must see
 * the response end at once.
 */

let hub: RelayHub
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
  hub = createRelayHub({ listenHost: '127.0.0.1' })
})
afterAll(async () => {
  await hub.close()
  dev.closeAllConnections()
  dev.close()
})

describe('the preview relay when the dev server dies mid-body', () => {
  it('ends the client response instead of holding its connection', async () => {
    const url = new URL((await hub.urlFor({ bind: '127.0.0.1', port: devPort }, '127.0.0.1'))!)
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
  }, 20_000)
})
