// WebSocket frame fuzz against the real bridge: arbitrary text and binary frames, well-formed and
// malformed load_older requests, and raw protocol-level garbage. The process never crashes, every
// socket ends cleanly, and the bridge keeps serving other clients.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import fc from 'fast-check'
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { WebSocket } from 'undici'
import { startStack, type Stack } from '../harness/stack.ts'
import { encodeCwd } from '../../plugins/kind-claude/transcript/locate.ts'
import { parseInbound } from '../../plugins/transcript/stream.ts'
import { MAX_WS_MESSAGE } from '../../core/websockets.ts'
import { openEvents } from '../events/ws-client.ts'
import { connect } from '../transcript/ws-client.ts'
import { until } from './util.ts'
import { takeFrames, closeCodeOf, rawUpgrade } from '../harness/ws-frames.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'

let stack: Stack
let pane: string
const TOTAL = 320

const eventsUrl = () => `${stack.bridge.wsUrl}/events?token=${stack.bridge.adminToken}`
const transcriptUrl = () => `${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`

beforeAll(async () => {
  stack = await startStack()
  const cwd = join(stack.home, 'proj')
  mkdirSync(cwd, { recursive: true })
  const projDir = join(stack.home, '.claude', 'projects', encodeCwd(cwd))
  mkdirSync(projDir, { recursive: true })
  const line = (i: number) => JSON.stringify({ type: 'user', uuid: `u${i}`, timestamp: '2025-01-01T00:00:00.000Z', message: { role: 'user', content: `m${i}` } })
  writeFileSync(join(projDir, 'fz1.jsonl'), Array.from({ length: TOTAL }, (_, i) => line(i + 1)).join('\n') + '\n')
  const r = await stack.sim.request('workspace.create', { cwd })
  pane = r.root_pane.pane_id
  await reportBusyAgent(stack.sim, pane, { source: 'herdr:claude', agent: 'claude', state: 'working', agent_session_id: 'fz1' })
}, 60_000)
afterAll(async () => stack?.close())

/** A data frame as undici sends it: text (string) or binary (bytes). */
const dataFrame = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.json().map((j) => j),
  fc.uint8Array({ maxLength: 600 }),
  fc.constantFrom(
    '',
    '{}',
    'null',
    '{"type":"load_older"}',
    '{"type":"load_older","before_seq":1.5}',
    '[{"type":"load_older","before_seq":3}]',
    '{"type":"load_older","before_seq":"9"}',
    '{"type":"LOAD_OLDER","before_seq":9}',
  ),
)

function openWs(url: string): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }>; frames: unknown[] }> {
  const ws = new WebSocket(url)
  const frames: unknown[] = []
  ws.addEventListener('message', (e) => frames.push(JSON.parse(String(e.data))))
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.addEventListener('close', (e) => r({ code: e.code, reason: e.reason })))
  return new Promise((resolve, reject) => {
    ws.addEventListener('open', () => resolve({ ws, closed, frames }), { once: true })
    ws.addEventListener('error', () => reject(new Error('websocket failed to open')), { once: true })
  })
}

async function stillServing(): Promise<void> {
  const res = await stack.bridge.request('/healthz', { token: null })
  expect(res.status).toBe(200)
  const c = openEvents(eventsUrl())
  await c.next((f) => f.type === 'snapshot')
  c.close()
  await c.closed
}

describe('/events: any inbound data frame ends the stream with 1000', () => {
  it('arbitrary text and binary frames (property)', async () => {
    await fc.assert(
      fc.asyncProperty(dataFrame, fc.boolean(), async (data, afterSnapshot) => {
        const c = await openWs(eventsUrl())
        // Before the snapshot went out, or after it: both end the same way.
        if (afterSnapshot) await until(() => c.frames.length > 0, 'the snapshot frame')
        c.ws.send(data)
        expect(await c.closed).toEqual({ code: 1000, reason: 'end of stream' })
      }),
      { numRuns: 40 },
    )
    await stillServing()
  }, 90_000)
})

describe('/agent-transcript: anything but a well-formed load_older closes 1000; load_older with any ints is answered', () => {
  it('arbitrary frames (property): 1000 unless the frame parses as load_older', async () => {
    await fc.assert(
      fc.asyncProperty(dataFrame, async (data) => {
        const c = await connect(transcriptUrl())
        await c.until((f) => f.type === 'backlog_complete')
        c.ws.send(data)
        const wellFormed = typeof data === 'string' && parseInbound(data) !== null
        if (wellFormed) {
          expect((await c.until((f) => f.type === 'page_complete')).requested_before_seq).toBe(JSON.parse(data).before_seq)
          c.close()
        } else {
          expect(await c.closed).toEqual({ code: 1000, reason: 'only load_older frames are accepted' })
        }
      }),
      { numRuns: 40 },
    )
    await stillServing()
  }, 90_000)

  it('well-formed load_older with arbitrary integers (property): a bounded page of older entries then page_complete, on one socket', async () => {
    const c = await connect(transcriptUrl())
    const hello = await c.next()
    expect(hello).toMatchObject({ type: 'hello', total: TOTAL, oldest_loaded_seq: TOTAL - 149 })
    await c.until((f) => f.type === 'backlog_complete')
    const int = fc.oneof(fc.integer({ min: -5, max: TOTAL + 5 }), fc.integer(), fc.constantFrom(0, 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER))
    await fc.assert(
      fc.asyncProperty(int, fc.option(int, { nil: undefined }), fc.boolean(), async (before, limit, nullLimit) => {
        c.send({ type: 'load_older', before_seq: before, ...(limit !== undefined ? { limit } : nullLimit ? { limit: null } : {}), extra: 'ignored' })
        const page: number[] = []
        for (;;) {
          const f = await c.next()
          if (f.type === 'page_complete') {
            const want = Math.min(before - 1, TOTAL)
            const cap = limit === undefined || limit <= 0 ? 150 : Math.min(limit, 500)
            const from = Math.max(1, want - cap + 1)
            const seqs = want >= from ? Array.from({ length: want - from + 1 }, (_, i) => from + i) : []
            expect(page).toEqual(seqs)
            expect(f).toEqual({ type: 'page_complete', requested_before_seq: before, oldest_loaded_seq: seqs[0] ?? 0, has_older: (seqs[0] ?? 0) > 1 })
            return
          }
          expect(f).toMatchObject({ type: 'entry', live: false })
          page.push(f.entry.seq)
        }
      }),
      { numRuns: 60 },
    )
    c.close()
    await stillServing()
  }, 90_000)
})

// --- raw frames: what undici would never send --------------------------------------------------

/** A client frame (masked, as RFC 6455 requires unless `unmasked`). */
function rawFrame(opcode: number, payload: Buffer, o: { fin?: boolean; unmasked?: boolean; rsv?: number; lengthOverride?: bigint } = {}): Buffer {
  const head = [((o.fin ?? true) ? 0x80 : 0) | ((o.rsv ?? 0) << 4) | (opcode & 0x0f)]
  const maskBit = o.unmasked ? 0 : 0x80
  const len = o.lengthOverride ?? BigInt(payload.length)
  let ext: Buffer
  if (len < 126n) {
    head.push(maskBit | Number(len))
    ext = Buffer.alloc(0)
  } else if (len < 65536n) {
    head.push(maskBit | 126)
    ext = Buffer.alloc(2)
    ext.writeUInt16BE(Number(len))
  } else {
    head.push(maskBit | 127)
    ext = Buffer.alloc(8)
    ext.writeBigUInt64BE(len)
  }
  if (o.unmasked) return Buffer.concat([Buffer.from(head), ext, payload])
  const mask = randomBytes(4)
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]))
  return Buffer.concat([Buffer.from(head), ext, mask, body])
}

/**
 * Upgrades a raw TCP socket, writes `bytes`, and reports how the server ended it. A socket still
 * open after `graceMs` (legitimately waiting for the rest of a partial frame) is half-closed by
 * the client, which must end it too; `halfClosed` says that was needed.
 */
async function rawSession(url: string, bytes: Buffer[], graceMs = 10_000): Promise<{ closeCode: number | null; halfClosed: boolean }> {
  const sock = await rawUpgrade(url)
  let buf: Buffer = Buffer.alloc(0)
  let upgraded = false
  let closeCode: number | null = null
  let isEnded = false
  const ended = new Promise<void>((resolve) => {
    sock.on('close', () => ((isEnded = true), resolve()))
    sock.on('error', () => {})
  })
  const ready = new Promise<void>((resolve, reject) => {
    sock.once('close', () => upgraded || reject(new Error('socket closed before the upgrade was answered')))
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d])
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        const head = buf.subarray(0, end).toString()
        if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(`no upgrade: ${head.split('\r\n')[0]}`))
        upgraded = true
        buf = buf.subarray(end + 4)
        resolve()
      }
      // Server frames are unmasked: look for the close frame.
      const taken = takeFrames(buf)
      buf = taken.rest
      for (const f of taken.frames) {
        if (f.op === 0x8 && closeCode === null) {
          closeCode = closeCodeOf(f.payload)
          // Complete the closing handshake as a well-behaved client does.
          if (!sock.destroyed) sock.end(rawFrame(8, Buffer.from(f.payload.subarray(0, Math.min(f.payload.length, 2)))))
        }
      }
    })
  })
  const upgradeTimer = setTimeout(() => sock.destroy(new Error('no upgrade answer')), 20_000)
  await ready.finally(() => clearTimeout(upgradeTimer))
  for (const b of bytes) if (!sock.destroyed) sock.write(b)
  let halfClosed = false
  const grace = setTimeout(() => {
    halfClosed = true
    sock.end()
  }, graceMs)
  const hard = setTimeout(() => sock.destroy(new Error('server kept the socket open')), graceMs + 10_000)
  await ended
  clearTimeout(grace)
  clearTimeout(hard)
  if (!isEnded) throw new Error('unreachable')
  return { closeCode, halfClosed }
}

/** Server close codes that mean "ended on purpose": normal, protocol error, bad data, too big. */
const CLEAN = [1000, 1002, 1007, 1009]

describe('raw protocol garbage on both streams', () => {
  /** A valid masked text frame: ends /events, and is not a load_older on /agent-transcript. */
  const trailer = rawFrame(1, Buffer.from('x'))
  const framed = fc.oneof(
    // Well-framed but with any opcode (reserved ones too), reserved bits, masking and fin.
    fc
      .record({ op: fc.integer({ min: 0, max: 15 }), rsv: fc.integer({ min: 0, max: 7 }), unmasked: fc.boolean(), fin: fc.boolean(), payload: fc.uint8Array({ maxLength: 140 }) })
      .map((r) => [rawFrame(r.op, Buffer.from(r.payload), r)]),
    // Invalid UTF-8 in a text frame, a continuation with nothing to continue, an oversized control
    // frame, a close frame with a 1-byte body, an interleaved fragmented message.
    fc.constantFrom(
      [rawFrame(1, Buffer.from([0xc3, 0x28, 0xff]))],
      [rawFrame(0, Buffer.from('x'))],
      [rawFrame(9, Buffer.alloc(200))],
      [rawFrame(8, Buffer.from([0x03]))],
      [rawFrame(1, Buffer.from('{"type":"load_older","before_seq":5}'), { fin: false }), rawFrame(2, Buffer.from('x'))],
    ),
  )
  it('complete frames of any shape, then a text frame: the server ends every socket with a clean code', async () => {
    await fc.assert(
      fc.asyncProperty(framed, fc.boolean(), async (bytes, toTranscript) => {
        const r = await rawSession(toTranscript ? transcriptUrl() : eventsUrl(), [...bytes, trailer])
        expect(r.halfClosed).toBe(false)
        expect(CLEAN).toContain(r.closeCode)
      }),
      { numRuns: 50 },
    )
    await stillServing()
  }, 120_000)

  it('random bytes after the handshake: the socket ends, at the latest when the client hangs up, and the bridge still serves', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.boolean(), async (bytes, toTranscript) => {
        const r = await rawSession(toTranscript ? transcriptUrl() : eventsUrl(), [Buffer.from(bytes), trailer], 300)
        if (r.closeCode !== null) expect([...CLEAN, 1005]).toContain(r.closeCode)
      }),
      { numRuns: 40 },
    )
    await stillServing()
  }, 90_000)

  it('a frame announcing 2^40 bytes is refused without waiting for the bytes', async () => {
    for (const url of [eventsUrl(), transcriptUrl()]) {
      const r = await rawSession(url, [rawFrame(2, Buffer.alloc(0), { lengthOverride: 1n << 40n })])
      expect(r.closeCode).toBe(1009)
    }
    await stillServing()
  })

  it('inbound messages are capped at 1 MiB: one byte over is refused with 1009, exactly 1 MiB is an ordinary frame', async () => {
    for (const url of [eventsUrl(), transcriptUrl()]) {
      expect(await rawSession(url, [rawFrame(1, Buffer.alloc(MAX_WS_MESSAGE + 1, 0x61))])).toEqual({ closeCode: 1009, halfClosed: false })
      expect(await rawSession(url, [rawFrame(2, Buffer.alloc(MAX_WS_MESSAGE, 0x61))])).toEqual({ closeCode: 1000, halfClosed: false })
    }
    await stillServing()
  })
})
