/**
 * Reading an answer body from something outside the daemon (a push service, a webhook, an ntfy
 * server, a usage endpoint, a local service): at most `maxBytes` are kept and at most
 * `deadlineMs` are spent, then the stream is cancelled, so a target that answers with a gigabyte,
 * or trickles bytes forever, costs the daemon `maxBytes` and one connection for `deadlineMs`
 * (docs/security.md, "What outside answers may cost").
 */
import type { Readable } from 'node:stream'

export interface CappedBody {
  /** The first `maxBytes` bytes (fewer when the body was shorter). */
  bytes: Buffer
  /** The kept bytes as UTF-8 (a character cut at the cap reads as U+FFFD). */
  text: string
  /** The body went past `maxBytes`, or past the deadline, and the rest was not read. */
  truncated: boolean
  /** Why the read stopped early, when it did. */
  stopped?: 'cap' | 'deadline'
}

export interface CappedReadOptions {
  maxBytes: number
  deadlineMs: number
}

type Source = ReadableStream<Uint8Array> | Readable | AsyncIterable<Uint8Array> | null | undefined

interface ChunkReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>
  cancel(): void
}

function readerOf(body: NonNullable<Source>): ChunkReader {
  if (typeof (body as ReadableStream).getReader === 'function') {
    const r = (body as ReadableStream<Uint8Array>).getReader()
    return { read: () => r.read(), cancel: () => void r.cancel().catch(() => {}) }
  }
  const it = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
  const destroy = (body as Readable).destroy?.bind(body)
  return {
    read: () => it.next() as Promise<{ done: boolean; value?: Uint8Array }>,
    // A node stream is destroyed outright (its socket is not reused); any other iterable is returned.
    cancel: () => (destroy ? void destroy() : void it.return?.()?.catch?.(() => {})),
  }
}

/** Reads at most `maxBytes` of `body` within `deadlineMs`; never throws for the body's own errors past what was kept. */
export async function readCapped(body: Source, opts: CappedReadOptions): Promise<CappedBody> {
  const kept: Buffer[] = []
  let size = 0
  let stopped: CappedBody['stopped']
  if (body) {
    const reader = readerOf(body)
    const deadline = Date.now() + opts.deadlineMs
    let timer: NodeJS.Timeout | undefined
    let finished = false
    try {
      for (;;) {
        const wait = deadline - Date.now()
        if (wait <= 0) {
          stopped = 'deadline'
          break
        }
        const pending = reader.read()
        // The read left behind when the deadline wins must not become an unhandled rejection.
        pending.catch(() => {})
        const r = await Promise.race([pending, new Promise<'late'>((resolve) => (timer = setTimeout(resolve, wait, 'late')))])
        clearTimeout(timer)
        if (r === 'late') {
          stopped = 'deadline'
          break
        }
        if (r.done) {
          finished = true
          break
        }
        const chunk = r.value!
        const room = opts.maxBytes - size
        if (chunk.byteLength > room) {
          if (room > 0) kept.push(Buffer.from(chunk.subarray(0, room)))
          size = opts.maxBytes
          stopped = 'cap'
          break
        }
        kept.push(Buffer.from(chunk))
        size += chunk.byteLength
      }
    } catch {
      // A body that fails midway is what it sent so far.
    } finally {
      clearTimeout(timer)
      if (!finished) reader.cancel()
    }
  }
  const bytes = Buffer.concat(kept)
  return { bytes, text: bytes.toString('utf8'), truncated: stopped !== undefined, ...(stopped ? { stopped } : {}) }
}
