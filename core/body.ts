import { assertBodySize, HTTPError, type H3Event } from 'h3'
import { HttpError } from './respond.ts'

/**
 * Reads a request body chunk by chunk, refusing with 408 when the client sends nothing for
 * `idleMs` or has not finished within `totalMs`, and with 413 past `max` bytes.
 */
export async function* bodyChunks(
  body: ReadableStream<Uint8Array> | null,
  opts: { idleMs: number; totalMs?: number; max?: number; tooLarge?: () => Error },
): AsyncGenerator<Uint8Array> {
  if (!body) return
  const reader = body.getReader()
  const deadline = opts.totalMs ? Date.now() + opts.totalMs : Infinity
  const timedOut = (message: string) => new HttpError(408, message, { connection: 'close' })
  const overdue = () => timedOut(`request body not finished within ${duration(opts.totalMs!)}`)
  let size = 0
  let finished = false
  try {
    for (;;) {
      const wait = Math.min(opts.idleMs, deadline - Date.now())
      if (wait <= 0) throw overdue()
      let timer: NodeJS.Timeout | undefined
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Date.now() >= deadline ? overdue() : timedOut(`request body stalled: nothing received for ${duration(opts.idleMs)}`)), wait)
      })
      let r: Awaited<ReturnType<typeof reader.read>>
      try {
        r = await Promise.race([reader.read(), stalled])
      } finally {
        clearTimeout(timer)
      }
      if (r.done) {
        finished = true
        return
      }
      size += r.value.byteLength
      if (opts.max !== undefined && size > opts.max) throw opts.tooLarge?.() ?? new HttpError(413, `body over ${opts.max} bytes`, { connection: 'close' })
      yield r.value
    }
  } finally {
    if (!finished) reader.cancel().catch(() => {})
    else reader.releaseLock()
  }
}

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${+(ms / 1000).toFixed(1)} s`)

/**
 * A whole (small) body as text, through h3's size limit (a declared length over `max` is refused
 * before reading, a chunked body as soon as it passes it) and the deadlines of `bodyChunks`, so a
 * client trickling bytes cannot hold the connection (docs/security.md).
 */
export async function readBodyText(req: Request, opts: { idleMs: number; totalMs: number; max: number }): Promise<string> {
  try {
    assertBodySize({ req } as H3Event, opts.max)
    const chunks: Uint8Array[] = []
    for await (const c of bodyChunks(req.body, opts)) chunks.push(c)
    return Buffer.concat(chunks).toString('utf8')
  } catch (err) {
    if (!HTTPError.isError(err)) throw err
    if (err.status === 413) throw new HttpError(413, `body over ${opts.max} bytes`)
    throw new HttpError(err.status, err.status === 400 ? 'want Content-Length or Transfer-Encoding, not both' : err.message)
  }
}
