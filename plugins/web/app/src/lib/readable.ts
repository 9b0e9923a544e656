/**
 * The pane's text for reading on a phone: xterm's buffer (the pane drawn at its own size, which a
 * watcher never changes) turned into logical lines, soft-wrapped rows joined, runs of blank rows
 * and trailing blanks dropped, and box-drawing rules marked so the view draws a rule that fits its own width.
 */
export interface ReadLine {
  text: string
  /** A line made only of box-drawing strokes: drawn as a rule, not as 120 dashes that wrap. */
  rule?: boolean
}

/** Text size of the readable view, CSS px: never below 11, the smallest legible on a phone. */
export const READ_FONT = {
  min: 11,
  max: 22,
  start: 13,
  clamp: (n: number) => Math.max(11, Math.min(22, Math.round(n))),
}

/** The subset of xterm's IBuffer this reads. */
export interface BufferLike {
  length: number
  getLine(y: number): { isWrapped: boolean; translateToString(trimRight?: boolean): string } | undefined
}

const RULE = /^[\s─━═┄┅┈┉╌╍-]+$/u

/** At most `limit` logical lines from the end of the buffer. */
export function readableLines(buffer: BufferLike, limit = 1000): ReadLine[] {
  const out: string[] = []
  for (let y = 0; y < buffer.length; y++) {
    const line = buffer.getLine(y)
    if (!line) continue
    const text = line.translateToString(true)
    if (line.isWrapped && out.length) out[out.length - 1] += text
    else out.push(text)
  }
  while (out.length && !out[out.length - 1].trim()) out.pop()
  // A TUI pads its screen with blank rows between the conversation and its prompt: one is enough here.
  const lines: ReadLine[] = []
  for (const text of out) {
    const t = text.replace(/\s+$/, '')
    if (!t && (!lines.length || !lines[lines.length - 1].text)) continue
    lines.push(t.length >= 8 && RULE.test(t) ? { text: '', rule: true } : { text: t })
  }
  return lines.slice(-limit)
}
