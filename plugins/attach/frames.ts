/**
 * Pure pieces of /attach: the query, client control frames, the CLI's output lines, the history
 * seed and close reasons. No I/O, so each rule is tested on its own.
 */

import * as v from 'valibot'
import { stripAnsi } from '../../lib/text.ts'
import { parseJsonRecord } from '../../lib/transcript/entry.ts'

export const SIZE_MAX = 1000
/** The reference bridge's initial PTY size; the client sends its real size right after connecting. */
export const DEFAULT_COLS = 80
export const DEFAULT_ROWS = 24
export const HISTORY_LINES = 1000

export type Mode = 'control' | 'observe'

export interface AttachQuery {
  pane: string
  mode: Mode
  cols: number
  rows: number
  takeover: boolean
}

export type QueryResult = { ok: true; query: AttachQuery } | { ok: false; message: string }

/** Absent or empty query values read as ''. */
const param = () => v.optional(v.string(), '')

const size = (name: string, fallback: number, what: string) =>
  v.pipe(
    param(),
    v.check((s) => s === '' || (/^\d{1,4}$/.test(s) && Number(s) >= 1 && Number(s) <= SIZE_MAX), `${name}: want an integer 1..${SIZE_MAX}`),
    v.transform((s) => (s === '' ? fallback : Number(s))),
    v.description(what),
  )

/** The /attach query; checked by the core after auth, listed in the API document. */
export const attachQuery = v.object({
  pane: v.pipe(param(), v.trim(), v.nonEmpty('want ?pane=<pane_id>'), v.description('pane id, session-qualified (required)')),
  mode: v.pipe(
    param(),
    v.picklist(['', 'control', 'observe'], 'mode: want control or observe'),
    v.transform((m): Mode => (m === 'observe' ? 'observe' : 'control')),
    v.description('control (default) or observe (read-only, any number of watchers)'),
  ),
  cols: size('cols', DEFAULT_COLS, `initial PTY columns 1..${SIZE_MAX} (default ${DEFAULT_COLS})`),
  rows: size('rows', DEFAULT_ROWS, `initial PTY rows 1..${SIZE_MAX} (default ${DEFAULT_ROWS})`),
  takeover: v.pipe(
    param(),
    v.picklist(['', '0', '1', 'true', 'false'], 'takeover: want 1 or 0'),
    v.transform((t) => t === '1' || t === 'true'),
    v.description('1 takes the pane over from its current controller (who closes with 4001)'),
  ),
})

export function parseAttachQuery(params: URLSearchParams): QueryResult {
  const r = v.safeParse(attachQuery, Object.fromEntries(params))
  return r.success ? { ok: true, query: r.output } : { ok: false, message: r.issues[0].message }
}

/**
 * A client text frame: `{"type":"resize","cols":C,"rows":R}` with 1..1000 each, else null.
 * Text frames are control only; nothing in one is ever typed into the pane.
 */
export function parseResize(text: string): { cols: number; rows: number } | null {
  if (text.length > 256) return null
  const msg = parseJsonRecord(text)
  if (msg?.type !== 'resize') return null
  const { cols, rows } = msg
  const ok = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= SIZE_MAX
  return ok(cols) && ok(rows) ? { cols, rows } : null
}

export type CliLine = { type: 'frame'; bytes: Buffer } | { type: 'closed'; reason: string | null } | null

/** One stdout line of `herdr terminal session observe|control`. */
export function parseCliLine(line: string): CliLine {
  if (!line.trim()) return null
  const msg = parseJsonRecord(line)
  if (!msg) return null
  const { type, bytes, reason } = msg
  if (type === 'terminal.frame' && typeof bytes === 'string') return { type: 'frame', bytes: Buffer.from(bytes, 'base64') }
  if (type === 'terminal.closed') return { type: 'closed', reason: typeof reason === 'string' ? reason : null }
  return null
}

/** How a frame line starts: herdr prints keys in alphabetical order, so `bytes` comes first. */
const FRAME_HEAD = Buffer.from('{"bytes":"')

/**
 * One stdout line of the CLI as bytes; the same answer as `parseCliLine` on its text. A frame's
 * base64 is sliced out and decoded without running JSON.parse over it (about a third of the
 * relay's cost per 87 KiB line); only the short rest of the line is parsed, to be sure the line
 * is a frame. The slice is taken only when it decodes in full (every character base64, so the
 * JSON string held it verbatim); any other line is parsed whole.
 */
export function parseCliBytes(line: Buffer): CliLine {
  const head = FRAME_HEAD.length
  const end = line.length > head && line.compare(FRAME_HEAD, 0, head, 0, head) === 0 ? line.indexOf(0x22, head) : -1
  if (end > 0) {
    const rest = line.toString('utf8', end + 1)
    const tail = rest[0] === ',' ? `{${rest.slice(1)}` : rest[0] === '}' ? `{${rest}` : null
    // Not a JSON object after all: the line is parsed whole below, which says so.
    const meta = tail === null ? null : parseJsonRecord(tail)
    if (meta?.type === 'terminal.frame' && !Object.hasOwn(meta, 'bytes')) {
      const b64 = line.toString('latin1', head, end)
      const bytes = Buffer.from(b64, 'base64')
      if (bytes.length === base64Length(b64)) return { type: 'frame', bytes }
    }
  }
  return parseCliLine(line.toString('utf8'))
}

/** Bytes that base64 text decodes to when every character in it is part of the alphabet. */
function base64Length(s: string): number {
  if (s.length % 4) return -1
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0
  return (s.length / 4) * 3 - pad
}

/**
 * Splits the CLI's stdout into lines at \n (one trailing \r dropped), holding only the line not
 * yet finished. Lines stay bytes, so a frame is never decoded to a string whole.
 */
export class LineSplitter {
  private parts: Buffer[] = []

  push(chunk: Buffer, onLine: (line: Buffer) => void): void {
    let s = 0
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, s)) {
      let line = chunk.subarray(s, nl)
      if (this.parts.length) {
        this.parts.push(line)
        line = Buffer.concat(this.parts)
        this.parts = []
      }
      onLine(line.length && line[line.length - 1] === 13 ? line.subarray(0, -1) : line)
      s = nl + 1
    }
    if (s < chunk.length) this.parts.push(chunk.subarray(s))
  }

  /** The stream ended: a last line without its newline still counts. */
  end(onLine: (line: Buffer) => void): void {
    if (!this.parts.length) return
    const line = Buffer.concat(this.parts)
    this.parts = []
    onLine(line)
  }
}

export const inputLine = (bytes: Uint8Array) => JSON.stringify({ type: 'terminal.input', bytes: Buffer.from(bytes).toString('base64') }) + '\n'
export const resizeLine = (cols: number, rows: number) => JSON.stringify({ type: 'terminal.resize', cols, rows, cell_width_px: 0, cell_height_px: 0 }) + '\n'
export const releaseLine = () => JSON.stringify({ type: 'terminal.release' }) + '\n'

/** CRLF line endings, idempotent (CRLF → LF → CRLF), trailing blank lines dropped; null when blank. */
export function historyFrame(text: string): Buffer | null {
  const lf = text.replace(/\r\n/g, '\n').replace(/\n+$/, '')
  if (!stripAnsi(lf).trim()) return null
  return Buffer.from(lf.replace(/\n/g, '\r\n') + '\r\n', 'utf8')
}

export interface CloseVerdict {
  code: number
  reason: string
}

/**
 * Close codes: 1000 the stream ended (pane gone, detached); 4409 refused because the pane has
 * a controller already; 4001 this controller was taken over; 1011 the herdr CLI failed.
 */
export function closeFor(reason: string | null): CloseVerdict {
  const r = reason ?? 'terminal stream ended'
  if (/already has an attached client/.test(r)) {
    return { code: 4409, reason: 'pane already has a controller: use mode=observe to watch, or takeover=1 to take it over' }
  }
  if (/taken over/.test(r)) return { code: 4001, reason: 'taken over by another client' }
  return { code: 1000, reason: r }
}

/** WebSocket close reasons are capped at 123 bytes; cut on a character boundary. */
export function closeReason(s: string): string {
  const line = s.split('\n')[0]
  if (Buffer.byteLength(line) <= 123) return line
  let out = ''
  for (const ch of line) {
    if (Buffer.byteLength(out + ch) > 120) break
    out += ch
  }
  return out + '…'
}
