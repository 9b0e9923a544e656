// The herdr socket client against real Unix sockets that misbehave: huge replies, lines that
// never end, subscriptions that never ack or stream junk. Memory and time stay bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server, type Socket } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HerdrError, herdrRequest, herdrSubscribe } from '../../core/herdr/socket.ts'

let dir: string
const servers: Server[] = []
const conns = new Set<Socket>()
let n = 0
const listen = (onConn: (s: Socket) => void) =>
  new Promise<string>((resolve) => {
    const path = join(dir, `s${++n}.sock`)
    const srv = createServer((s) => {
      conns.add(s)
      s.on('error', () => {})
      onConn(s)
    })
    servers.push(srv)
    srv.listen(path, () => resolve(path))
  })

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'herdr-faults-'))
})
afterAll(async () => {
  for (const c of conns) c.destroy()
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
  rmSync(dir, { recursive: true, force: true })
})

/** Writes `total` bytes of `byte` in 64 KiB chunks, respecting back-pressure, until the peer goes. */
async function pour(s: Socket, total: number, byte = 0x61): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, byte)
  let sent = 0
  while (sent < total && !s.destroyed) {
    if (!s.write(chunk)) await new Promise((r) => (s.once('drain', r), s.once('close', r)))
    sent += chunk.length
  }
  return sent
}

describe('herdrRequest', () => {
  it('a 20 MB reply line arriving in 16 KiB chunks is reassembled whole', async () => {
    const big = 'x'.repeat(20 << 20)
    const path = await listen((s) =>
      s.once('data', (d) => {
        const { id } = JSON.parse(d.toString())
        const line = Buffer.from(`{"id":"${id}","result":{"type":"session_snapshot","blob":"${big}"}}\n`)
        void (async () => {
          for (let i = 0; i < line.length && !s.destroyed; i += 16 * 1024) if (!s.write(line.subarray(i, i + 16 * 1024))) await new Promise((r) => s.once('drain', r))
          s.end()
        })()
      }),
    )
    const r = await herdrRequest<{ blob: string }>(path, 'session.snapshot', {}, { timeoutMs: 20_000 })
    expect(r.blob === big).toBe(true)
  })

  // Before the line splitter searched only new data, each chunk rescanned the whole buffer and
  // this ran into the 20 s request timeout long before reaching the cap.
  it('a reply that never ends its line is cut off at the cap, not buffered without bound', async () => {
    let poured!: Promise<number>
    const path = await listen((s) => s.once('data', () => (poured = pour(s, 200 << 20))))
    const err = await herdrRequest<never>(path, 'session.snapshot', {}, { timeoutMs: 20_000 }).catch((e: HerdrError) => e)
    expect(err).toBeInstanceOf(HerdrError)
    expect([err.code, err.message]).toEqual(['unreachable', 'reply to session.snapshot exceeds 67108864 bytes'])
    // The client hung up: the server's writes stop well short of everything it had to send.
    expect(await poured).toBeLessThan(200 << 20)
  })
})

describe('herdrSubscribe', () => {
  const subscribe = (path: string, ackTimeoutMs = 15_000) =>
    new Promise<{ reason: string; events: string[]; acked: boolean }>((resolve) => {
      const events: string[] = []
      let acked = false
      herdrSubscribe(
        path,
        [{ type: 'pane.created' }],
        { onAck: () => (acked = true), onEvent: (e) => events.push(e), onClose: (reason) => resolve({ reason, events, acked }) },
        { ackTimeoutMs },
      )
    })
  const ack = (s: Socket, then: () => void) =>
    s.once('data', (d) => {
      const { id } = JSON.parse(d.toString())
      s.write(`{"id":"${id}","result":{"type":"subscription_started"}}\n`)
      then()
    })

  it('an event line that never ends closes the subscription at the cap', async () => {
    let poured!: Promise<number>
    const path = await listen((s) => ack(s, () => (poured = pour(s, 200 << 20))))
    const r = await subscribe(path)
    expect(r.acked).toBe(true)
    expect(r.reason).toBe('event line exceeds 16777216 bytes')
    expect(await poured).toBeLessThan(200 << 20)
  })

  it('junk lines, half lines and non-events between real events are skipped', async () => {
    const path = await listen((s) =>
      ack(s, () => {
        s.write('not json\n{"event":\n')
        s.write('{"event":"pane_created","data":{}}\n[]\n"x"\n{"data":{}}\n{"event":42}\n')
        s.write('{"event":"pane_clo')
        s.end('sed","data":{"pane_id":"w1:p1"}}\n')
      }),
    )
    const r = await subscribe(path)
    expect(r.events).toEqual(['pane_created', 'pane_closed'])
    expect(r.reason).toBe('socket closed')
  })

  it('no ack within the deadline: closed with a reason, the socket released', async () => {
    const path = await listen(() => {})
    const r = await subscribe(path, 300)
    expect(r).toEqual({ reason: 'no subscription ack within 0.3 s', events: [], acked: false })
  })
})
