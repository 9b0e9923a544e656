import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from 'node:net'
import { startStack, type Stack } from '../harness/stack.ts'
import type { TestBridge } from '../harness/bridge.ts'
import { makeRepo, type Repo } from '../diff/repo.ts'
import { agentPane } from '../diff/panes.ts'
import { launch, type Browser } from '../web/browser.ts'
import { drainBound } from '../../core/body.ts'

/**
 * An over-cap body is read and dropped (up to twice the cap, 10 s) before the 413, so clients
 * that write their whole body before reading the answer (Node's fetch, a browser's fetch, the
 * mobile app) read "too large" instead of a reset connection; one that never stops sending is
 * cut off at the bound.
 */
const MiB = 1024 * 1024
let stack: Stack
let repo: Repo
let b: TestBridge
let bearer: string
/** A real agent pane, so a chunked upload gets as far as reading its body. */
let pane: string
beforeAll(async () => {
  stack = await startStack()
  b = stack.bridge
  repo = makeRepo({ files: { 'README.md': 'hi\n' } })
  ;({ pane } = await agentPane(stack, repo.dir))
  bearer = (await b.pair('uploader')).bearer
})
afterAll(async () => {
  await stack?.close()
  repo?.cleanup()
})

const bytes = (n: number) => new Uint8Array(n).fill(7)

describe('over-cap bodies answer 413 to clients that write before they read', () => {
  it('undici (Node fetch), declared length: /image 12 MiB over its 10 MiB cap', async () => {
    const r = await fetch(`${b.url}/image?pane=w1:p1`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'image/png' }, body: bytes(12 * MiB) })
    expect(r.status).toBe(413)
    expect(await r.text()).toBe('body over the 10 MiB limit of /image')
  })

  it('undici, chunked (no declared length): /image', async () => {
    const chunk = bytes(MiB)
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 12) c.enqueue(chunk)
        else c.close()
      },
    })
    const r = await fetch(`${b.url}/image?pane=${encodeURIComponent(pane)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}` },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(r.status).toBe(413)
    expect(await r.text()).toBe('body over the 10 MiB limit of /image')
  })

  for (const size of [3, 20])
    it(`undici, a JSON route: ${size} MiB to /send (1 MiB cap), declared and chunked`, async () => {
      const text = JSON.stringify({ pane: 'w1:p1', text: 'x'.repeat(size * MiB) })
      const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }
      const declared = await fetch(`${b.url}/send`, { method: 'POST', headers, body: text })
      expect(declared.status).toBe(413)
      expect(await declared.text()).toBe(`body over ${MiB} bytes`)
      const chunked = await fetch(`${b.url}/send`, { method: 'POST', headers, body: new Blob([text]).stream(), duplex: 'half' } as RequestInit)
      expect(chunked.status).toBe(413)
      expect(await chunked.text()).toBe(`body over ${MiB} bytes`)
    })

  it('a client that never stops sending is cut off at the bound, having been read no further', async () => {
    const sock = connect(Number(new URL(b.url).port), '127.0.0.1')
    await new Promise((r) => sock.once('connect', r))
    sock.write(`POST /send HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${bearer}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`)
    const chunk = Buffer.concat([Buffer.from(`10000\r\n`), Buffer.alloc(0x10000, 0x61), Buffer.from('\r\n')])
    let sent = 0
    let answer = ''
    sock.on('data', (d) => (answer += d.toString('latin1')))
    sock.on('error', () => {})
    const closed = new Promise<void>((r) => sock.once('close', () => r()))
    let open = true
    void closed.then(() => (open = false))
    // Writes as fast as the socket takes them, for as long as it stays open.
    while (open) {
      if (!sock.write(chunk)) await Promise.race([new Promise((r) => sock.once('drain', r)), closed])
      sent += chunk.length
    }
    await closed
    // Cut at the drain bound (32 MiB for /send), plus what sat in socket buffers when it came.
    expect(sent).toBeGreaterThan(drainBound(MiB))
    expect(sent).toBeLessThan(drainBound(MiB) + 16 * MiB)
    expect(answer === '' || answer.startsWith('HTTP/1.1 413')).toBe(true)
  })
})

describe('a browser fetch', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('Chromium reads the 413 of over-cap uploads (12 MiB to /image, 20 MiB to /send) instead of a network error', async () => {
    // Same origin as the bridge, as the web app is.
    await browser.page.goto(`${b.url}/healthz`)
    const out = await browser.page.evaluate(
      async ({ bearer, MiB }) => {
        const post = async (path: string, body: BodyInit, type?: string) => {
          try {
            const r = await fetch(path, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, ...(type ? { 'content-type': type } : {}) }, body })
            return `${r.status} ${await r.text()}`
          } catch (err) {
            return `error ${(err as Error).message}`
          }
        }
        return [await post('/image?pane=w1:p1', new Uint8Array(12 * MiB)), await post('/send', JSON.stringify({ pane: 'w1:p1', text: 'x'.repeat(20 * MiB) }), 'application/json')]
      },
      { bearer, MiB },
    )
    expect(out).toEqual(['413 body over the 10 MiB limit of /image', `413 body over ${MiB} bytes`])
  })
})
