// Test clients for /events: undici's WebSocket (a fast reader) and a raw TCP client that stops
// reading after the handshake (a slow one), both real sockets against the real bridge.
import { WebSocket } from 'undici'
import net from 'node:net'
import { randomBytes } from 'node:crypto'
import { takeFrames, closeCodeOf, rawUpgrade } from '../harness/ws-frames.ts'

/**
 * One parsed /events frame. Tests read any frame kind's fields straight off it and assert them
 * exactly, so a frame is left untyped here rather than cast at each of the many call sites.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary JSON frames, checked by each test's own assertions
export type Frame = any

export interface Frames {
  ws: WebSocket
  frames: Frame[]
  /** Resolves with the first frame at or after index `from` matching `pred`. */
  next(pred: (f: Frame) => boolean, timeoutMs?: number, from?: number): Promise<Frame>
  closed: Promise<{ code: number; reason: string }>
  close(): void
}

export function openEvents(url: string): Frames {
  const ws = new WebSocket(url)
  const frames: Frame[] = []
  const waiters = new Set<() => void>()
  let done = false
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.addEventListener('close', (e) => {
      done = true
      resolve({ code: e.code, reason: e.reason })
      for (const w of waiters) w()
    })
  })
  ws.addEventListener('message', (e) => {
    frames.push(JSON.parse(String(e.data)))
    for (const w of waiters) w()
  })
  return {
    ws,
    frames,
    closed,
    close: () => ws.close(),
    async next(pred, timeoutMs = 20_000, from = 0) {
      const deadline = Date.now() + timeoutMs
      let checked = from
      for (;;) {
        for (; checked < frames.length; checked++) if (pred(frames[checked])) return frames[checked]
        if (done) throw new Error(`socket closed while waiting; frames: ${JSON.stringify(frames.slice(-5)).slice(0, 1500)}`)
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; last: ${JSON.stringify(frames.slice(-8)).slice(0, 2000)}`)
        await new Promise<void>((r) => {
          const w = () => {
            clearTimeout(t)
            waiters.delete(w)
            r()
          }
          const t = setTimeout(w, left)
          waiters.add(w)
        })
      }
    },
  }
}

/** A WebSocket client that completes the handshake and then reads nothing until `drain()`. */
export async function openStalled(url: string): Promise<{ drain(): Promise<{ code: number; reason: string; frames: number }>; destroy(): void }> {
  const sock = await rawUpgrade(url)
  let buf: Buffer = Buffer.alloc(0)
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d])
      const end = buf.indexOf('\r\n\r\n')
      if (end < 0) return
      const head = buf.subarray(0, end).toString()
      if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(`no upgrade: ${head.split('\r\n')[0]}`))
      buf = buf.subarray(end + 4)
      sock.off('data', onData)
      sock.pause()
      resolve()
    }
    sock.on('data', onData)
  })
  return {
    destroy: () => sock.destroy(),
    drain: () =>
      new Promise((resolve, reject) => {
        let frames = 0
        const parse = () => {
          const taken = takeFrames(buf)
          buf = taken.rest
          for (const f of taken.frames) {
            if (f.op === 0x8) {
              sock.destroy()
              return resolve({ code: closeCodeOf(f.payload), reason: f.payload.subarray(2).toString(), frames })
            }
            frames++
          }
        }
        sock.on('data', (d: Buffer) => {
          buf = Buffer.concat([buf, d])
          parse()
        })
        sock.on('close', () => reject(new Error(`socket ended without a close frame after ${frames} frames`)))
        parse()
        sock.resume()
      }),
  }
}

/** Sends a WebSocket upgrade request and returns the status line's code and the body. */
export async function upgradeStatus(url: string): Promise<{ status: number; body: string }> {
  const u = new URL(url)
  const sock = net.connect(Number(u.port), u.hostname)
  sock.write(
    `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  )
  let raw = ''
  await new Promise<void>((resolve) => {
    sock.on('data', (d) => {
      raw += d.toString()
      const end = raw.indexOf('\r\n\r\n')
      if (end < 0) return
      const len = /content-length:\s*(\d+)/i.exec(raw.slice(0, end))
      if (raw.startsWith('HTTP/1.1 101') || (len && raw.length >= end + 4 + Number(len[1]))) resolve()
    })
    sock.on('close', () => resolve())
    sock.on('error', () => resolve())
  })
  sock.destroy()
  const end = raw.indexOf('\r\n\r\n')
  return { status: Number(raw.slice(9, 12)), body: end >= 0 ? raw.slice(end + 4) : '' }
}
