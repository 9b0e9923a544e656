// herdr's connection rules (protocol doc 1.3): one request per connection, only the first
// newline-terminated line is read, one reply line, then close. Streaming methods keep the
// connection and treat any further client byte, or EOF, as "the client left".
import fs from 'node:fs'
import net from 'node:net'

const MAX_LINE = 1024 * 1024
const FIRST_LINE_TIMEOUT_MS = 5000
const utf8 = new TextDecoder('utf-8', { fatal: true })

export class Connection {
  /** Set once the client sent anything after its request line, hung up, or the socket died. */
  gone = false
  /** A streaming connection is torn down as soon as the client leaves; a plain one still replies. */
  private streaming = false
  private goneListeners: Array<() => void> = []
  private dataListener: ((chunk: Buffer) => void) | undefined

  constructor(readonly socket: net.Socket) {
    socket.on('close', () => this.markGone())
    socket.on('error', () => this.markGone())
  }

  /** Writes one compact JSON line. */
  send(obj: unknown): void {
    if (this.socket.destroyed || this.socket.writableEnded) return
    this.socket.write(`${JSON.stringify(obj)}\n`)
  }

  /** Replies and closes, as every non-streaming method does. */
  reply(obj: unknown): void {
    if (this.socket.destroyed || this.socket.writableEnded) return
    // Close fully once the line is flushed: herdr drops the connection after its reply, and a
    // half-open socket would otherwise linger until the client hangs up.
    this.socket.end(`${JSON.stringify(obj)}\n`, () => this.socket.destroy())
  }

  close(): void {
    if (!this.socket.destroyed) this.socket.end(() => this.socket.destroy())
    this.markGone()
  }

  /** Marks the connection as held open by a streaming method (subscription, wait, stream). */
  setStreaming(): void {
    this.streaming = true
    if (this.gone) this.socket.destroy()
  }

  onGone(cb: () => void): void {
    if (this.gone) cb()
    else this.goneListeners.push(cb)
  }

  /** For simulator-private duplex channels: hands later client bytes to `cb` instead of ending. */
  takeData(cb: (chunk: Buffer) => void): void {
    this.dataListener = cb
  }

  /** Called by the server with bytes that arrive after the request line. */
  clientData(chunk: Buffer): void {
    if (this.dataListener) this.dataListener(chunk)
    else this.markGone()
  }

  clientEnd(): void {
    if (this.dataListener) this.dataListener(Buffer.alloc(0))
    this.markGone()
  }

  private markGone(): void {
    if (this.gone) return
    this.gone = true
    if (this.streaming && !this.socket.writableEnded) this.socket.destroy()
    const listeners = this.goneListeners
    this.goneListeners = []
    for (const l of listeners) l()
  }
}

export type LineHandler = (line: string, conn: Connection) => void

export interface WireServer {
  close(): Promise<void>
  connections: Set<Connection>
}

/** Listens on a Unix socket with mode 0600, replacing a stale socket file nobody listens on. */
export async function listen(socketPath: string, onLine: LineHandler): Promise<WireServer> {
  await removeStaleSocket(socketPath)
  const connections = new Set<Connection>()
  const sockets = new Set<net.Socket>()
  // allowHalfOpen: a client may shut down its write side after the newline and still expect
  // the reply; herdr answers such requests normally.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    const conn = new Connection(socket)
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    connections.add(conn)
    conn.onGone(() => connections.delete(conn))
    let buffered = Buffer.alloc(0)
    let haveLine = false
    const timer = setTimeout(() => {
      if (!haveLine) socket.destroy()
    }, FIRST_LINE_TIMEOUT_MS)
    socket.on('data', (chunk: Buffer) => {
      if (haveLine) {
        conn.clientData(chunk)
        return
      }
      buffered = Buffer.concat([buffered, chunk])
      const nl = buffered.indexOf(0x0a)
      if (nl < 0) {
        if (buffered.length > MAX_LINE) socket.destroy()
        return
      }
      haveLine = true
      clearTimeout(timer)
      const lineBytes = buffered.subarray(0, nl)
      const rest = buffered.subarray(nl + 1)
      if (lineBytes.length > MAX_LINE) return void socket.destroy()
      let line: string
      try {
        line = utf8.decode(lineBytes)
      } catch {
        return void socket.destroy()
      }
      if (line.trim().length === 0) return void socket.destroy()
      onLine(line, conn)
      // herdr reads byte by byte, so bytes after the newline are still queued in the socket:
      // a plain request never looks at them, a streaming one sees them as "client left".
      if (rest.length > 0) conn.clientData(rest)
    })
    socket.on('end', () => {
      if (haveLine) conn.clientEnd()
      else {
        clearTimeout(timer)
        socket.destroy()
      }
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(socketPath, () => {
      server.off('error', reject)
      resolve()
    })
  })
  fs.chmodSync(socketPath, 0o600)
  return {
    connections,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const s of sockets) s.destroy()
      })
      try {
        fs.unlinkSync(socketPath)
      } catch {
        // already gone
      }
    },
  }
}

async function removeStaleSocket(socketPath: string): Promise<void> {
  if (!fs.existsSync(socketPath)) return
  const alive = await new Promise<boolean>((resolve) => {
    const s = net.connect(socketPath)
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
  if (alive) throw new Error(`another server is listening on ${socketPath}`)
  fs.unlinkSync(socketPath)
}
