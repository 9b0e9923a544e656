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
      if (opts.max !== undefined && size > opts.max) {
        // Read and drop the rest (within bounds) so the client, still writing, reads the 413.
        finished = await discardRest(reader, { read: size, cap: opts.max, idleMs: opts.idleMs })
        throw opts.tooLarge?.() ?? new HttpError(413, `body over ${opts.max} bytes`, { connection: 'close' })
      }
      yield r.value
    }
  } finally {
    if (!finished) reader.cancel().catch(() => {})
    else reader.releaseLock()
  }
}

/**
 * How much of an over-cap body is read and dropped before the 413: up to twice the cap in all,
 * and at least 32 MiB, for at most 10 s, each read within the body's idle deadline. A client
 * that writes its whole body before it reads (Node's fetch, browsers, the mobile app) would
 * otherwise see the connection reset instead of the answer; one that never stops is cut off
 * at the bound, having cost no memory (nothing read is kept).
 */
export const DRAIN_MS = 10_000
export const drainBound = (cap: number) => Math.max(2 * cap, 32 * 1024 * 1024)

/** Reads and drops what is left of a body, within the drain bounds; true when the body ended. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, opts: { read: number; cap: number; idleMs: number }): Promise<boolean> {
  const until = Date.now() + DRAIN_MS
  const bound = drainBound(opts.cap)
  let read = opts.read
  while (read <= bound) {
    const wait = Math.min(opts.idleMs, until - Date.now())
    if (wait <= 0) return false
    let timer: NodeJS.Timeout | undefined
    const pending = reader.read()
    pending.catch(() => {})
    const r = await Promise.race([pending, new Promise<null>((resolve) => (timer = setTimeout(resolve, wait, null)))]).catch(() => null)
    clearTimeout(timer)
    if (!r) return false
    if (r.done) return true
    read += r.value.byteLength
  }
  return false
}

/**
 * For a body refused on its declared length before any of it was read: drops it within the
 * drain bounds so the 413 reaches a client that writes before it reads; past the bounds the
 * body is cancelled (and with it the connection).
 */
export async function drainBody(req: Request, cap: number, idleMs: number): Promise<void> {
  if (!req.body || req.bodyUsed) return
  const reader = req.body.getReader()
  if (await discardRest(reader, { read: 0, cap, idleMs })) reader.releaseLock()
  else await reader.cancel().catch(() => {})
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
    if (err.status === 413) {
      // Refused on its declared length: dropped within bounds first, so the answer is read.
      await drainBody(req, opts.max, opts.idleMs)
      throw new HttpError(413, `body over ${opts.max} bytes`)
    }
    throw new HttpError(err.status, err.status === 400 ? 'want Content-Length or Transfer-Encoding, not both' : err.message)
  }
}
