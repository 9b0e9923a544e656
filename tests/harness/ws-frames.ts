/** Reading server WebSocket frames off a raw socket, for tests that must see the wire itself. */
import { connect, type Socket } from 'node:net'
import { randomBytes } from 'node:crypto'

export interface RawFrame {
  op: number
  /** Set on the first frame of a permessage-deflate compressed message. */
  rsv1: boolean
  payload: Buffer
}

/**
 * Takes every complete (unmasked, server-sent) frame off the front of `buf`; returns them and
 * what is left for the next chunk.
 */
export function takeFrames(buf: Buffer): { frames: RawFrame[]; rest: Buffer } {
  const frames: RawFrame[] = []
  for (;;) {
    if (buf.length < 2) break
    let len = buf[1] & 0x7f
    let off = 2
    if (len === 126) {
      if (buf.length < 4) break
      len = buf.readUInt16BE(2)
      off = 4
    } else if (len === 127) {
      if (buf.length < 10) break
      len = Number(buf.readBigUInt64BE(2))
      off = 10
    }
    if (buf.length < off + len) break
    frames.push({ op: buf[0] & 0x0f, rsv1: (buf[0] & 0x40) !== 0, payload: buf.subarray(off, off + len) })
    buf = buf.subarray(off + len)
  }
  return { frames, rest: buf }
}

/** The code of a close frame's payload (1005 when it carries none). */
export const closeCodeOf = (payload: Buffer) => (payload.length >= 2 ? payload.readUInt16BE(0) : 1005)

/** A TCP connection to `url` with a WebSocket upgrade request written; the answer is the caller's to read. */
export async function rawUpgrade(url: string, headers: Record<string, string> = {}): Promise<Socket> {
  const u = new URL(url)
  const sock = connect(Number(u.port), u.hostname)
  await new Promise<void>((r, j) => {
    sock.once('connect', () => r())
    sock.once('error', j)
  })
  sock.write(
    `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
      Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('') +
      '\r\n',
  )
  return sock
}
