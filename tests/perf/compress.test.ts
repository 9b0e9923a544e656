// Compressed answers over real sockets: JSON bodies of 1 KiB or more in br or gzip when accepted
// (decompressed and compared with the plain answer), Vary on every JSON answer, small bodies and
// other types untouched; permessage-deflate refused on /events and /attach (see plugins/events).
import { describe, test, expect, beforeAll, afterAll } from 'vitest'
import { request as httpRequest } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import type { Socket } from 'node:net'
import { startStack, type Stack } from '../harness/stack.ts'
import { rawUpgrade, takeFrames, type RawFrame } from '../harness/ws-frames.ts'
import { compressResponse, pickEncoding } from '../../lib/http/compress.ts'

let st: Stack
let pane: string

/** One GET with the raw body bytes as they came off the wire (no client-side decoding). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, any>; body: Buffer }> {
  const u = new URL(st.bridge.url + path)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers: { authorization: `Bearer ${st.bridge.adminToken}`, ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** The upgrade answer's head, and the first data frame after it. */
async function upgradeAndFirstFrame(path: string, withFrame: boolean): Promise<{ head: string; frame?: RawFrame; sock: Socket }> {
  const sock = await rawUpgrade(`${st.bridge.wsUrl}${path}`, { 'Sec-WebSocket-Extensions': 'permessage-deflate; client_max_window_bits' })
  let buf = Buffer.alloc(0)
  let head: string | undefined
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer on ${path}: ${buf.toString('latin1').slice(0, 300)}`)), 20_000)
    sock.on('error', reject)
    sock.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk])
      if (head === undefined) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        head = buf.subarray(0, end).toString('latin1')
        buf = buf.subarray(end + 4)
        if (!withFrame) {
          clearTimeout(timer)
          return resolve({ head, sock })
        }
      }
      const { frames } = takeFrames(buf)
      const data = frames.find((f) => f.op === 1 || f.op === 2)
      if (data) {
        clearTimeout(timer)
        resolve({ head, frame: data, sock })
      }
    })
  })
}

beforeAll(async () => {
  st = await startStack({ sessions: ['default', 'work'] })
  // Enough panes that the snapshot is well over 1 KiB.
  for (let i = 0; i < 6; i++) {
    const r = await st.sim.request('workspace.create', {}, i % 2 ? 'work' : 'default')
    pane ??= r.root_pane.pane_id
    await st.sim.request('sim.set_status', { pane_id: r.root_pane.pane_id, state: 'working', agent: 'sim-agent' }, i % 2 ? 'work' : 'default')
  }
  await st.bridge.bridge.ingest!.settled()
})
afterAll(async () => {
  await st?.close()
})

describe('HTTP compression', () => {
  test('GET /snapshot in br and gzip decodes to the plain answer; Vary names Accept-Encoding', async () => {
    const plain = await rawGet('/snapshot', {})
    expect(plain.status).toBe(200)
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.headers.vary).toMatch(/accept-encoding/i)
    expect(plain.body.length).toBeGreaterThan(1024)
    const expected = JSON.parse(plain.body.toString('utf8'))

    const br = await rawGet('/snapshot', { 'accept-encoding': 'gzip, deflate, br' })
    expect([br.status, br.headers['content-encoding'], br.headers['content-length']]).toEqual([200, 'br', undefined])
    expect(br.headers.vary).toMatch(/accept-encoding/i)
    expect(br.headers['content-type']).toMatch(/^application\/json/)
    expect(br.body.length).toBeLessThan(plain.body.length * 0.5)
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(expected)

    const gz = await rawGet('/snapshot', { 'accept-encoding': 'gzip' })
    expect([gz.status, gz.headers['content-encoding']]).toEqual([200, 'gzip'])
    expect(JSON.parse(gunzipSync(gz.body).toString('utf8'))).toEqual(expected)

    // br refused by weight: gzip.
    const q = await rawGet('/snapshot', { 'accept-encoding': 'br;q=0, gzip;q=0.5' })
    expect(q.headers['content-encoding']).toBe('gzip')
    const none = await rawGet('/snapshot', { 'accept-encoding': 'identity' })
    expect(none.headers['content-encoding']).toBeUndefined()
    expect(JSON.parse(none.body.toString('utf8'))).toEqual(expected)
  })

  test('small JSON bodies go out plain', async () => {
    const small = await rawGet('/healthz', { 'accept-encoding': 'br, gzip' })
    expect(small.status).toBe(200)
    expect(small.headers['content-encoding']).toBeUndefined()
    expect(JSON.parse(small.body.toString('utf8'))).toEqual({ ok: true })
  })

  test('event streams, binary and already-encoded bodies are never compressed', async () => {
    const big = 'x'.repeat(4096)
    const req = new Request('http://h/x', { headers: { 'accept-encoding': 'br, gzip' } })
    const sse = await compressResponse(req, new Response(big, { headers: { 'content-type': 'text/event-stream' } }))
    expect(sse.headers.get('content-encoding')).toBeNull()
    const zip = await compressResponse(req, new Response(big, { headers: { 'content-type': 'application/zip' } }))
    expect(zip.headers.get('content-encoding')).toBeNull()
    const pre = await compressResponse(req, new Response(big, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }))
    expect(pre.headers.get('content-encoding')).toBe('gzip')
    const json = await compressResponse(req, new Response(big, { headers: { 'content-type': 'application/problem+json' } }))
    expect(json.headers.get('content-encoding')).toBe('br')
    expect([pickEncoding(null), pickEncoding('*'), pickEncoding('gzip;q=0, br;q=0'), pickEncoding('deflate')]).toEqual([null, 'br', null, null])
  })
})

describe('permessage-deflate', () => {
  test('/events and /attach do not negotiate it; the /events snapshot frame arrives plain', async () => {
    const ev = await upgradeAndFirstFrame(`/events?token=${st.bridge.adminToken}`, true)
    try {
      expect(ev.head).toMatch(/^HTTP\/1\.1 101/)
      expect(ev.head).not.toMatch(/sec-websocket-extensions/i)
      expect(ev.frame!.rsv1).toBe(false)
      expect(JSON.parse(ev.frame!.payload.toString('utf8')).type).toBe('snapshot')
    } finally {
      ev.sock.destroy()
    }
    const at = await upgradeAndFirstFrame(`/attach?pane=${encodeURIComponent(pane)}&token=${st.bridge.adminToken}`, false)
    try {
      expect(at.head).toMatch(/^HTTP\/1\.1 101/)
      expect(at.head).not.toMatch(/sec-websocket-extensions/i)
    } finally {
      at.sock.destroy()
    }
  })
})
