/** Streaming line scan over a byte range of an open file: complete lines only, bounded memory. */
import type { FileHandle } from 'node:fs/promises'

const CHUNK = 1 << 20

/**
 * Calls `onLine` for every complete (newline-terminated) line starting at `from` and ending
 * before `to`; a line longer than `maxLine` bytes is reported with `text` null and never
 * buffered. Returns the offset just past the last complete line (where the next scan resumes).
 */
export async function scanLines(fh: FileHandle, from: number, to: number, maxLine: number, onLine: (text: string | null, start: number, len: number) => void): Promise<number> {
  const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, to - from)))
  let pos = from
  let consumed = from
  let lineStart = from
  let carry: Buffer[] = []
  let carryLen = 0
  let oversized = false
  while (pos < to) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, to - pos), pos)
    if (bytesRead <= 0) break
    let s = 0
    while (s < bytesRead) {
      let nl = buf.indexOf(10, s)
      if (nl >= bytesRead) nl = -1
      const e = nl < 0 ? bytesRead : nl
      if (!oversized) {
        if (carryLen + (e - s) > maxLine) {
          oversized = true
          carry = []
          carryLen = 0
        } else if (nl < 0) {
          carry.push(Buffer.from(buf.subarray(s, e)))
          carryLen += e - s
        }
      }
      if (nl < 0) break
      const lineEnd = pos + e
      let text: string | null = null
      if (!oversized) text = carryLen ? Buffer.concat([...carry, buf.subarray(s, e)]).toString('utf8') : buf.toString('utf8', s, e)
      onLine(text, lineStart, lineEnd - lineStart)
      consumed = lineStart = lineEnd + 1
      carry = []
      carryLen = 0
      oversized = false
      s = e + 1
    }
    pos += bytesRead
  }
  return consumed
}
