/**
 * Compressed answers for clients on slow links. JSON bodies of 1 KiB or more go out as `br` or
 * `gzip` when the request accepts it, streamed through zlib (never buffered whole); the event
 * stream, binary downloads and anything already encoded pass untouched. WebSocket routes that
 * send large JSON frames negotiate `permessage-deflate` with a bounded per-socket cost.
 */
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib'
import { Duplex } from 'node:stream'
import type { PerMessageDeflateOptions } from 'crossws'

/** Smallest body worth compressing; below this the encoding overhead beats the saving. */
export const MIN_COMPRESS_BYTES = 1024

/** JSON media types: `application/json` and `application/*+json`. */
const COMPRESSIBLE = /^application\/(?:[\w.-]+\+)?json\b/i

export type Encoding = 'br' | 'gzip'

/** The best encoding the request accepts (br over gzip, q=0 refuses), or null. */
export function pickEncoding(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null
  const q: Record<string, number> = {}
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';')
    if (!name) continue
    let weight = 1
    for (const p of params) {
      const m = /^\s*q=([0-9.]+)\s*$/.exec(p)
      if (m) weight = Number(m[1])
    }
    q[name] = Number.isFinite(weight) ? weight : 0
  }
  const wild = q['*']
  const weight = (e: Encoding) => q[e] ?? wild ?? 0
  if (weight('br') > 0 && weight('br') >= weight('gzip')) return 'br'
  if (weight('gzip') > 0) return 'gzip'
  return null
}

// Brotli's default quality (11) costs tens of ms on a snapshot; 4 keeps most of the ratio.
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }
const GZIP = { level: 6 }

function encoder(encoding: Encoding): Duplex {
  return encoding === 'br' ? createBrotliCompress(BROTLI) : createGzip(GZIP)
}

/** A whole body compressed at once, with the settings of the streamed answers: for bodies kept and sent many times. */
export function encodeBody(encoding: Encoding, body: Uint8Array): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, BROTLI) : gzipSync(body, GZIP)
}

/**
 * A kept JSON body as the answer to `request`: compressed (from the body's own cache) when the
 * request accepts it and the body is worth it, with `Vary: Accept-Encoding` either way.
 */
export function jsonBodyResponse(request: Request, body: { json: Uint8Array; encoded(encoding: Encoding): Uint8Array }): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', vary: 'Accept-Encoding' }
  const encoding = body.json.byteLength >= MIN_COMPRESS_BYTES ? pickEncoding(request.headers.get('accept-encoding')) : null
  // A known length: the client reads one sized body instead of chunks (compressed ones stay chunked, as streamed answers are).
  if (request.method === 'HEAD' || !encoding) return new Response(body.json as Uint8Array<ArrayBuffer>, { headers: { ...headers, 'content-length': String(body.json.byteLength) } })
  return new Response(body.encoded(encoding) as Uint8Array<ArrayBuffer>, { headers: { ...headers, 'content-encoding': encoding } })
}

/**
 * The response to send for `request`: `response` itself, or the same answer with its body
 * compressed. Adds `Vary: Accept-Encoding` to every answer whose encoding depends on it. A body
 * of unknown length is read up to 1 KiB to decide; the rest streams through the encoder.
 */
export async function compressResponse(request: Request, response: Response): Promise<Response> {
  const type = response.headers.get('content-type') ?? ''
  if (!COMPRESSIBLE.test(type) || !response.body || request.method === 'HEAD') return response
  if (response.status < 200 || response.status === 204 || response.status === 206 || response.status === 304) return response
  if (response.headers.has('content-encoding') || /\bno-transform\b/i.test(response.headers.get('cache-control') ?? '')) return response
  const vary = response.headers.get('vary')
  // The route chose its encoding itself (a kept body, see jsonBodyResponse): send it as it is.
  if (vary && /\baccept-encoding\b/i.test(vary)) return response
  const headers = new Headers(response.headers)
  if (!vary) headers.set('vary', 'Accept-Encoding')
  else if (!/\baccept-encoding\b|\*/i.test(vary)) headers.set('vary', `${vary}, Accept-Encoding`)
  const init = { status: response.status, statusText: response.statusText, headers }
  const encoding = pickEncoding(request.headers.get('accept-encoding'))
  const length = response.headers.get('content-length')
  if (!encoding || (length !== null && Number(length) < MIN_COMPRESS_BYTES)) return new Response(response.body, init)
  let body: ReadableStream<Uint8Array> = response.body
  if (length === null) {
    const head = await peek(body, MIN_COMPRESS_BYTES)
    if (head.done) return new Response(head.bytes as Uint8Array<ArrayBuffer>, init)
    body = head.body
  }
  headers.set('content-encoding', encoding)
  headers.delete('content-length')
  return new Response(body.pipeThrough(Duplex.toWeb(encoder(encoding)) as unknown as TransformStream<Uint8Array, Uint8Array<ArrayBuffer>>), init)
}

/** Reads `body` until `min` bytes or its end: the whole (small) body, or a stream that replays what was read. */
async function peek(body: ReadableStream<Uint8Array>, min: number): Promise<{ done: true; bytes: Uint8Array } | { done: false; body: ReadableStream<Uint8Array> }> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  while (size < min) {
    const { done, value } = await reader.read()
    if (done) return { done: true, bytes: Buffer.concat(chunks) }
    chunks.push(value)
    size += value.byteLength
  }
  return {
    done: false,
    body: new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const next = chunks.shift()
        if (next) return controller.enqueue(next)
        const { done, value } = await reader.read()
        if (done) controller.close()
        else controller.enqueue(value)
      },
      cancel: (reason) => reader.cancel(reason),
    }),
  }
}

/**
 * `permessage-deflate` for sockets that send large JSON frames (/events snapshot, transcript
 * pages). No context takeover, so frames under the threshold (most events) skip zlib entirely
 * and each big frame compresses on its own; the window and memLevel cap zlib's memory at about
 * 64 KiB per socket.
 */
export const WS_DEFLATE: PerMessageDeflateOptions = {
  serverNoContextTakeover: true,
  clientNoContextTakeover: true,
  serverMaxWindowBits: 13,
  zlibDeflateOptions: { level: 6, memLevel: 7 },
  threshold: MIN_COMPRESS_BYTES,
}

/** The per-socket deflate answer for a WebSocket route: on where the route asks for it. */
export const wsDeflateFor = (route: { deflate?: boolean } | undefined): PerMessageDeflateOptions | false => (route?.deflate ? WS_DEFLATE : false)
