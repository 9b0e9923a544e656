// Arbitrary query strings, methods and JSON bodies against the finished routes of the real
// bridge: never a 500, never a stack trace; herdr trouble is a 502, a turned-off feature a 503.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import fc from 'fast-check'
import { connect } from 'node:net'
import { hostname } from 'node:os'
import { startStack, type Stack } from '../harness/stack.ts'
import { newPane, setStatus } from '../events/common.ts'

let stack: Stack
let panes: string[] = []

beforeAll(async () => {
  stack = await startStack({ sessions: ['default', 'work'] })
  const shell = (await newPane(stack.sim)).pane
  await setStatus(stack.sim, shell, 'blocked')
  const other = (await newPane(stack.sim, 'work')).pane
  await setStatus(stack.sim, other, 'working', {}, 'work')
  panes = [shell, `work/${other}`, other]
}, 60_000)
afterAll(async () => stack?.close())

/** Values that look like ids, paths, numbers and junk. */
const value = () =>
  fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom(
      '',
      ' ',
      '0',
      '-1',
      '1e3',
      '500',
      '501',
      '99999999999999999999',
      'NaN',
      'true',
      '%',
      '%zz',
      '%00',
      '..',
      '../../etc/passwd',
      'w1:p1',
      'default/w1:p1',
      'nosuch/w1:p1',
      '/w1',
      'w1:',
      ':p1',
      '\u0000',
      '\n',
    ),
    fc.constantFrom(...panes),
    fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })).map(([a, b]) => `${a}/${b}`),
  )
const key = fc.oneof(fc.constantFrom('pane', 'limit', 'recent', 'token', 'subagent', 'since', 'pane[]', ''), fc.string({ maxLength: 10 }))
/** A query as a client might build it, or a raw string with broken escapes. */
const query = () =>
  fc.oneof(
    fc.array(fc.tuple(key, value()), { maxLength: 5 }).map((kv) => new URLSearchParams(kv).toString()),
    fc.string({ maxLength: 60 }).map((s) => s.replace(/#/g, '')),
    fc.constantFrom('pane=%E0%A4%A', 'limit=%FF', 'pane', '&&&', '=', 'pane=a&pane=b', 'limit=1&limit=x'),
  )

/** Status and body of one request; a body must be one short line without a stack trace. */
async function hit(path: string, init: RequestInit & { token?: string | null; json?: unknown } = {}): Promise<{ status: number; body: string }> {
  const res = await stack.bridge.request(path, init)
  const body = await res.text()
  return { status: res.status, body }
}

function assertSane(path: string, r: { status: number; body: string }, allowed: number[]): void {
  const ok = allowed.includes(r.status)
  if (!ok) throw new Error(`${path} → ${r.status} ${r.body.slice(0, 300)}`)
  expect(r.status).not.toBe(500)
  if (r.status >= 400) {
    expect(r.body).not.toMatch(/\n\s+at /)
    expect(r.body.length).toBeLessThan(2000)
  }
}

describe('query strings (property)', () => {
  const routes: [string, number[]][] = [
    // herdr is up: a 502 here would be a client mistake passed through as herdr's.
    ['/agent-state', [200, 400, 404]],
    ['/timeline', [200, 400]],
    ['/snapshot', [200]],
    ['/events', [426]],
    ['/agent-transcript', [400, 404]],
  ]
  for (const [route, allowed] of routes) {
    it(`GET ${route}?<arbitrary> answers one of ${allowed.join('/')}`, async () => {
      await fc.assert(
        fc.asyncProperty(query(), async (q) => {
          // A ?token= in the query never beats the Authorization header.
          const path = `${route}?${q}`
          assertSane(path, await hit(path), allowed)
        }),
        { numRuns: 80 },
      )
    })
  }

  it('the cards that exist are served: a blocked agent on each session', async () => {
    for (const p of [panes[0], panes[1]]) {
      const r = await hit(`/agent-state?pane=${encodeURIComponent(p)}`)
      expect([p, r.status]).toEqual([p, 200])
    }
  })
})

describe('methods and JSON bodies (property)', () => {
  const json = () => fc.oneof(fc.jsonValue(), fc.record({ pane: value(), limit: fc.oneof(fc.integer(), value()), text: fc.string() }, { requiredKeys: [] }))
  const raw = () =>
    fc.oneof(
      json().map((j) => JSON.stringify(j)),
      fc.string({ maxLength: 80 }),
      fc.constantFrom('{', '{"pane":', '[', 'null', '"x"', '\u0000', '{"pane":"w1:p1"}garbage'),
    )

  it('POST/PUT/DELETE to the GET routes: 405 with Allow, whatever the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/agent-state', '/timeline', '/snapshot'), fc.constantFrom('POST', 'PUT', 'DELETE'), raw(), async (route, method, body) => {
        const res = await stack.bridge.request(route, { method, body, headers: { 'content-type': 'application/json' } })
        expect([route, method, res.status, res.headers.get('allow')]).toEqual([route, method, 405, 'GET'])
        await res.text()
      }),
      { numRuns: 60 },
    )
  })

  it('POST /agent-mode/cycle with arbitrary bodies: 400/404/409, never 500', async () => {
    // Panes that exist are left out: a valid pane would really press keys in it.
    const body = raw().filter((b) => !panes.some((p) => b.includes(p.split('/').pop()!)))
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const r = await hit('/agent-mode/cycle', { method: 'POST', body: b, headers: { 'content-type': 'application/json' } })
        assertSane(`/agent-mode/cycle ${b}`, r, [400, 404, 409])
      }),
      { numRuns: 80 },
    )
  })

  it('bearer tokens of any shape: 401 before any work', async () => {
    const token = fc.string({ minLength: 1, maxLength: 80 }).filter((t) => /^[\x21-\x7e]+$/.test(t) && t !== stack.bridge.adminToken)
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/agent-state?pane=w1:p1', '/timeline', '/snapshot', '/events'), token, async (route, t) => {
        const r = await hit(route, { token: t })
        expect([route, r.status]).toEqual([route, 401])
      }),
      { numRuns: 60 },
    )
  })
})

describe('request bodies are capped while they are read', () => {
  /** Streams a chunked body until the server answers; returns the status line and bytes sent. */
  async function chunkedUntilAnswer(path: string, headers: Record<string, string>, limit: number): Promise<{ status: number; sent: number }> {
    const { default: net } = await import('node:net')
    const u = new URL(stack.bridge.url)
    const sock = net.connect(Number(u.port), u.hostname)
    await new Promise<void>((r, j) => {
      sock.once('connect', () => r())
      sock.once('error', j)
    })
    const head = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')
    sock.write(`POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n${head}\r\n`)
    let answer = ''
    let sent = 0
    const answered = new Promise<void>((resolve) => {
      sock.on('data', (d) => {
        answer += d.toString()
        if (answer.includes('\r\n')) resolve()
      })
      sock.on('close', () => resolve())
      sock.on('error', () => resolve())
    })
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
    let done = false
    void answered.then(() => (done = true))
    while (!done && sent < limit && !sock.destroyed) {
      if (!sock.write(frame)) await Promise.race([new Promise((r) => sock.once('drain', r)), answered])
      sent += chunk.length
    }
    await Promise.race([answered, new Promise((r) => setTimeout(r, 10_000))])
    sock.destroy()
    return { status: Number(answer.slice(9, 12)) || 0, sent }
  }

  it('a chunked JSON body with no Content-Length is refused with 413 once past 1 MiB, without reading the rest (unauthenticated route)', async () => {
    const r = await chunkedUntilAnswer('/pair', {}, 64 << 20)
    expect(r.status).toBe(413)
    expect(r.sent).toBeLessThan(64 << 20)
  })

  it('the same on an authenticated route', async () => {
    const r = await chunkedUntilAnswer('/agent-mode/cycle', { authorization: `Bearer ${stack.bridge.adminToken}` }, 64 << 20)
    expect(r.status).toBe(413)
    expect(r.sent).toBeLessThan(64 << 20)
  })
})

describe('Host headers (property)', () => {
  /** Sends one raw request with this Host line (latin1 bytes, as a client may send anything) and reads the answer to the close. */
  function rawWithHost(host: string, upgrade: boolean): Promise<{ status: number; body: string }> {
    const u = new URL(stack.bridge.url)
    const head = upgrade
      ? `GET /events HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`
      : `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`
    return new Promise((resolve, reject) => {
      const sock = connect(Number(u.port), u.hostname, () => sock.write(Buffer.from(head, 'latin1')))
      let raw = ''
      sock.on('data', (d) => (raw += d.toString('latin1')))
      sock.on('error', reject)
      sock.on('close', () => {
        const end = raw.indexOf('\r\n\r\n')
        const headers = raw.slice(0, end)
        let body = raw.slice(end + 4)
        if (/^transfer-encoding: chunked$/im.test(headers)) {
          let out = ''
          for (let nl = body.indexOf('\r\n'), size = parseInt(body.slice(0, nl), 16); size > 0; nl = body.indexOf('\r\n'), size = parseInt(body.slice(0, nl), 16)) {
            out += body.slice(nl + 2, nl + 2 + size)
            body = body.slice(nl + 2 + size + 2)
          }
          body = out
        }
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0), body: Buffer.from(body, 'latin1').toString('utf8') })
      })
      // An upgrade that is let through stays open after its answer: the answer is enough.
      if (upgrade) sock.once('data', () => setImmediate(() => sock.end()))
    })
  }

  const machine = hostname().toLowerCase()
  /** How a client may spell a name: any case, an optional port, an optional trailing dot. */
  const spelled = (name: fc.Arbitrary<string>) =>
    fc
      .tuple(name, fc.boolean(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), fc.array(fc.boolean(), { maxLength: 64 }))
      .map(([n, dot, port, upper]) => [...`${n}${dot && !n.startsWith('[') ? '.' : ''}`].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('') + (port ? `:${port}` : ''))
  const foreign = fc.domain().filter((d) => {
    const n = d.toLowerCase()
    return n !== 'localhost' && !n.endsWith('.localhost') && n !== machine && n !== `${machine}.local`
  })
  const served = fc.oneof(
    fc.ipV4(),
    fc.ipV6().map((a) => `[${a}]`),
    fc.constantFrom('localhost', machine, `${machine}.local`),
    fc.domain().map((d) => `${d}.localhost`),
  )

  it('a name the bridge does not serve gets 421 naming it, on requests and upgrades alike', async () => {
    await fc.assert(
      fc.asyncProperty(spelled(foreign), fc.boolean(), async (host, upgrade) => {
        const name = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '')
        const r = await rawWithHost(host, upgrade)
        expect([host, r.status, r.body]).toEqual([
          host,
          421,
          `host ${name} is not served here; add it to transport.allowed_hosts or BRIDGE_ALLOWED_HOSTS (a name or *.suffix), set transport.public_url to its URL, or pair once with \`bridge pair --url https://${name}\``,
        ])
      }),
      { numRuns: 100 },
    )
  })

  it("IP literals, localhost, *.localhost and this machine's names are served", async () => {
    await fc.assert(
      fc.asyncProperty(spelled(served), fc.boolean(), async (host, upgrade) => {
        const r = await rawWithHost(host, upgrade)
        // An upgrade without a credential is refused by auth, not by the Host check.
        expect([host, r.status]).toEqual([host, upgrade ? 401 : 200])
      }),
      { numRuns: 100 },
    )
  })

  it('any bytes as Host: 200, 400, 401 or 421, one line, never a 500, and the bridge still serves', async () => {
    const bytes = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
      fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b).toString('latin1')),
    )
    await fc.assert(
      fc.asyncProperty(
        bytes.filter((h) => !/[\r\n]/.test(h)),
        fc.boolean(),
        async (host, upgrade) => {
          const r = await rawWithHost(host, upgrade)
          expect([JSON.stringify(host), [200, 400, 401, 421].includes(r.status)]).toEqual([JSON.stringify(host), true])
          expect(r.body).not.toMatch(/\n\s+at /)
          if (r.status === 421)
            expect(r.body).toMatch(
              /^host [^\n]* is not served here; add it to transport\.allowed_hosts or BRIDGE_ALLOWED_HOSTS \(a name or \*\.suffix\), set transport\.public_url to its URL, or pair once with `bridge pair --url https:\/\/[^\n]*`$/,
            )
        },
      ),
      { numRuns: 150 },
    )
    expect((await stack.bridge.request('/healthz')).status).toBe(200)
  })

  // A bracketed IPv6 literal followed by anything but `:port` once passed as an IP literal and
  // then failed building the request URL of an upgrade: 500.
  it('a malformed bracketed Host is a 400 naming the problem, on requests and upgrades alike', async () => {
    for (const host of ['[::1].', '[::1]x', '[::1', '[::1]:80.', '[example.com]', '[]']) {
      for (const upgrade of [false, true]) {
        const r = await rawWithHost(host, upgrade)
        expect([host, upgrade, r.status, r.body]).toEqual([host, upgrade, 400, 'bad Host header: want a name, an IPv4 address or a bracketed IPv6 address, with an optional :port'])
      }
    }
  })
})
