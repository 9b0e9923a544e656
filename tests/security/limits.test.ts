import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connect, type Socket } from 'node:net'
import { createConsola, type LogObject } from 'consola'
import { startBridge, type TestBridge } from '../harness/bridge.ts'

/**
 * What an unauthenticated client may cost: bodies have deadlines, connections have caps, and a
 * client hanging up mid-body is one quiet line. Before these limits a client sending one byte
 * every few seconds held its connection for ever.
 */

const logs: LogObject[] = []
let b: TestBridge
beforeAll(async () => {
  const log = createConsola({ level: 5, reporters: [{ log: (o) => void logs.push(o) }] })
  b = await startBridge({ log, limits: { body_idle_ms: 400, json_body_ms: 1500, max_connections: 12, max_unauthenticated: 4 } })
})
afterAll(() => b?.close())

const port = () => Number(new URL(b.url).port)

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port(), '127.0.0.1', () => resolve(s))
    s.once('error', reject)
  })
}

/** Everything the server sends until it closes the connection (or `ms` pass). */
function readAll(s: Socket, ms = 8000): Promise<string> {
  return new Promise((resolve) => {
    let got = ''
    const t = setTimeout(() => {
      s.destroy()
      resolve(got)
    }, ms)
    s.on('data', (d) => (got += d.toString('latin1')))
    s.on('close', () => {
      clearTimeout(t)
      resolve(got)
    })
    s.on('error', () => {})
  })
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0)
/** The body of a raw response, chunked transfer encoding undone. */
function bodyOf(raw: string): string {
  const end = raw.indexOf('\r\n\r\n')
  let rest = raw.slice(end + 4)
  if (!/^transfer-encoding: chunked$/im.test(raw.slice(0, end))) return rest
  let out = ''
  for (;;) {
    const nl = rest.indexOf('\r\n')
    const size = parseInt(rest.slice(0, nl), 16)
    if (!size) return out
    out += rest.slice(nl + 2, nl + 2 + size)
    rest = rest.slice(nl + 2 + size + 2)
  }
}

/** Waits until the server has counted its connections down (sockets close asynchronously). */
async function settle(): Promise<void> {
  for (;;) {
    const r = await b.request('/info').catch(() => null)
    if (r?.status === 200) return
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('body deadlines', () => {
  test('a /pair body that stalls is answered 408 with one line and the connection closed', async () => {
    const s = await open()
    s.write('POST /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"co')
    const raw = await readAll(s)
    expect(statusOf(raw)).toBe(408)
    expect(bodyOf(raw)).toBe('request body stalled: nothing received for 400 ms')
  })

  test('a /pair body trickling a byte at a time is cut at the total deadline', async () => {
    const s = await open()
    s.write('POST /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n')
    const drip = setInterval(() => s.writable && s.write(' '), 100)
    const raw = await readAll(s)
    clearInterval(drip)
    expect(statusOf(raw)).toBe(408)
    expect(bodyOf(raw)).toBe('request body not finished within 1.5 s')
  })

  test('a client hanging up mid-body is logged at debug level, one line, no stack', async () => {
    const from = logs.length
    const s = await open()
    s.write('POST /pair HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"co')
    await new Promise((r) => setTimeout(r, 50))
    s.destroy()
    const line = await new Promise<LogObject>((resolve) => {
      const t = setInterval(() => {
        const hit = logs.slice(from).find((l) => String(l.args[0]).includes('/pair'))
        if (!hit) return
        clearInterval(t)
        resolve(hit)
      }, 20)
    })
    expect(line.type).toBe('debug')
    expect(line.args).toEqual(['POST /pair: client aborted the request'])
    expect(logs.slice(from).filter((l) => l.level <= 1)).toEqual([])
  })
})

describe('connection caps', () => {
  test('past the unauthenticated cap a connection gets a one-line 503; authenticated connections do not count', async () => {
    await settle()
    // One keep-alive connection that authenticates: it leaves the unauthenticated pool.
    const authed = await open()
    authed.write(`GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${b.adminToken}\r\n\r\n`)
    await new Promise<void>((r) => authed.once('data', () => r()))
    const idle: Socket[] = []
    try {
      for (let i = 0; i < 4; i++) idle.push(await open())
      const over = await open()
      const raw = await readAll(over)
      expect(statusOf(raw)).toBe(503)
      expect(bodyOf(raw)).toBe('too many unauthenticated connections; retry later\n')
    } finally {
      for (const s of idle) s.destroy()
      authed.destroy()
    }
  })

  test('past the total cap every new connection gets a one-line 503, and the bridge serves again once they go', async () => {
    await settle()
    const held: Socket[] = []
    try {
      // Authenticated keep-alive connections fill the total cap without touching the other.
      for (let i = 0; i < 12; i++) {
        const s = await open()
        s.write(`GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${b.adminToken}\r\n\r\n`)
        await new Promise<void>((r) => s.once('data', () => r()))
        held.push(s)
      }
      const raw = await readAll(await open())
      expect(statusOf(raw)).toBe(503)
      expect(bodyOf(raw)).toBe('too many connections; retry later\n')
    } finally {
      for (const s of held) s.destroy()
    }
    await settle()
    expect((await b.request('/info')).status).toBe(200)
  })
})
