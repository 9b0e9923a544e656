// Compressed answers over real sockets: JSON bodies of 1 KiB or more in br or gzip when accepted
// (decompressed and compared with the plain answer), Vary on every JSON answer, small bodies and
// other types untouched; permessage-deflate negotiated on /agent-transcript (compressed frames
// inflate to the plain JSON, a client closing at once still gets the server's close 1000 on the
// wire) and refused on /events and /attach (see plugins/events for why /events has none).
import { describe, test, expect, beforeAll, afterAll } from 'vitest'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { brotliDecompressSync, constants, gunzipSync, inflateRawSync } from 'node:zlib'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Socket } from 'node:net'
import { startStack, type Stack } from '../harness/stack.ts'
import { closeCodeOf, rawUpgrade, takeFrames, type RawFrame } from '../harness/ws-frames.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import { encodeCwd } from '../../plugins/kind-claude/transcript/locate.ts'
import { compressResponse, pickEncoding } from '../../lib/http/compress.ts'

let st: Stack
let pane: string

/** One GET with the raw body bytes as they came off the wire (no client-side decoding). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
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

/** Reads server frames off a raw upgraded socket until `done` says so or the server ends TCP. */
function readFrames(sock: Socket, done: (frames: RawFrame[]) => boolean): Promise<{ head: string; frames: RawFrame[] }> {
  let buf: Buffer = Buffer.alloc(0)
  let head: string | undefined
  const frames: RawFrame[] = []
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer: ${head ?? buf.toString('latin1').slice(0, 300)}`)), 20_000)
    const finish = () => {
      clearTimeout(timer)
      resolve({ head: head ?? '', frames })
    }
    sock.on('error', reject)
    sock.on('close', finish)
    sock.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk])
      if (head === undefined) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        head = buf.subarray(0, end).toString('latin1')
        buf = buf.subarray(end + 4)
      }
      const taken = takeFrames(buf)
      buf = taken.rest
      frames.push(...taken.frames)
      if (done(frames)) finish()
    })
  })
}

const isData = (f: RawFrame) => f.op === 1 || f.op === 2

/** The upgrade answer's head, and the first data frame after it. */
async function upgradeAndFirstFrame(path: string, withFrame: boolean): Promise<{ head: string; frame?: RawFrame; sock: Socket }> {
  const sock = await rawUpgrade(`${st.bridge.wsUrl}${path}`, { 'Sec-WebSocket-Extensions': 'permessage-deflate; client_max_window_bits' })
  const { head, frames } = await readFrames(sock, (fs) => !withFrame || fs.some(isData))
  return { head, frame: frames.find(isData), sock }
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

  /** A claude pane whose transcript has entries well over the 1 KiB compression threshold. */
  async function transcriptPane(): Promise<string> {
    const cwd = join(st.home, 'deflate-proj')
    const dir = join(st.home, '.claude', 'projects', encodeCwd(cwd))
    mkdirSync(cwd, { recursive: true })
    mkdirSync(dir, { recursive: true })
    const line = (i: number) =>
      JSON.stringify({ type: 'user', uuid: `d${i}`, timestamp: '2025-01-01T00:00:00.000Z', message: { role: 'user', content: `entry ${i} ${'words '.repeat(400)}` } })
    writeFileSync(join(dir, 'deflate.jsonl'), Array.from({ length: 20 }, (_, i) => line(i + 1)).join('\n') + '\n')
    const r = await st.sim.request('workspace.create', { cwd })
    await reportBusyAgent(st.sim, r.root_pane.pane_id, { source: 'herdr:claude', agent: 'claude', state: 'working', agent_session_id: 'deflate' })
    return r.root_pane.pane_id
  }

  // Each message is one deflate stream flushed, not finished (no context takeover), its last four bytes dropped.
  const inflate = (f: RawFrame) => JSON.parse(inflateRawSync(Buffer.concat([f.payload, Buffer.from([0, 0, 0xff, 0xff])]), { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8'))
  /** A masked client close frame with this code. */
  const clientClose = (code: number) => {
    const mask = Buffer.from([9, 8, 7, 6])
    const body = Buffer.alloc(2)
    body.writeUInt16BE(code)
    for (let i = 0; i < 2; i++) body[i] ^= mask[i]
    return Buffer.concat([Buffer.from([0x88, 0x82]), mask, body])
  }

  test('/agent-transcript negotiates it: entries over 1 KiB arrive compressed and inflate to the entry', async () => {
    const pane = await transcriptPane()
    const sock = await rawUpgrade(`${st.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${st.bridge.adminToken}`, {
      'Sec-WebSocket-Extensions': 'permessage-deflate; client_max_window_bits',
    })
    try {
      const { head, frames } = await readFrames(sock, (fs) => fs.some((f) => f.op === 1 && !f.rsv1 && f.payload.includes('backlog_complete')))
      expect(head).toMatch(/^HTTP\/1\.1 101/)
      expect(head).toMatch(/^sec-websocket-extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=13$/im)
      const entries = frames.filter((f) => f.rsv1)
      expect(entries).toHaveLength(20)
      for (const f of entries) expect(f.payload.length).toBeLessThan(1024)
      const first = inflate(entries[0])
      expect([first.type, first.entry.seq, first.entry.text.startsWith('entry 1 words')]).toEqual(['entry', 1, true])
      expect(inflate(entries[19]).entry.seq).toBe(20)
    } finally {
      sock.destroy()
    }
  })

  // Why /events has none is a client's doing (undici's WebSocket inflates asynchronously and
  // reports 1006 when the TCP connection ends while a compressed frame is still inflating, with
  // the close frame already received behind it); on the wire the bridge closes cleanly.
  test('a client that closes at once, while compressed frames are on their way, still gets close 1000 after them', async () => {
    const pane = await transcriptPane()
    const sock = await rawUpgrade(`${st.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${st.bridge.adminToken}`, {
      'Sec-WebSocket-Extensions': 'permessage-deflate; client_max_window_bits',
    })
    let sent = false
    // Closed as soon as the first compressed frame is in: the rest are still being deflated and sent.
    const { frames } = await readFrames(sock, (fs) => {
      if (!sent && fs.some((f) => f.rsv1)) sock.write(clientClose(1000))
      sent ||= fs.some((f) => f.rsv1)
      return false
    })
    const close = frames.find((f) => f.op === 8)
    expect(close && closeCodeOf(close.payload)).toBe(1000)
    expect(frames.indexOf(close!)).toBe(frames.length - 1)
    const compressed = frames.filter((f) => f.rsv1)
    expect(compressed.length).toBeGreaterThan(0)
    for (const f of compressed) expect(inflate(f).type).toBe('entry')
  })
})
