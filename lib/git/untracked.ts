/**
 * The synthesized diff of an untracked file: `--- /dev/null`, `+++ b/<path>`, each line of the
 * first 64 KiB prefixed `+`, then `… (truncated)` when cut. Binary content (NUL bytes or invalid
 * UTF-8) is the fixed sentence instead. Only regular files are read (a symlink shows its target,
 * a fifo or socket is never opened), and never more than the cap.
 */
import { lstat, readlink } from 'node:fs/promises'
import { openConfined, readUpTo } from '../open-confined.ts'

export const UNTRACKED_CAP = 64 * 1024
export const TRUNCATED_MARKER = '… (truncated)'
export const BINARY_SENTENCE = 'Binary file, not shown.'

export interface SyntheticDiff {
  diff: string
  additions: number
}

/** `base` is the real path of the work tree `absPath` lies in; a file found outside it reads as empty. */
export async function synthesizeUntracked(absPath: string, path: string, base: string): Promise<SyntheticDiff> {
  let bytes: Buffer
  let truncated = false
  try {
    const st = await lstat(absPath)
    if (st.isSymbolicLink()) bytes = Buffer.from(await readlink(absPath), 'utf8')
    else if (!st.isFile()) bytes = Buffer.alloc(0)
    else {
      const { fh, st: opened } = await openConfined(absPath, base)
      try {
        // Judged again on what was opened: a fifo or directory swapped in since the lstat reads as empty.
        const head = opened.isFile() ? await readUpTo(fh, UNTRACKED_CAP + 1) : Buffer.alloc(0)
        truncated = head.length > UNTRACKED_CAP
        bytes = head.subarray(0, UNTRACKED_CAP)
      } finally {
        await fh.close()
      }
    }
  } catch {
    // Gone between `git status` and the read, or swapped for something outside the tree or in
    // `.git`: show it as empty rather than fail the whole diff.
    bytes = Buffer.alloc(0)
  }
  return renderUntracked(path, bytes, truncated)
}

export function renderUntracked(path: string, bytes: Buffer, truncated: boolean): SyntheticDiff {
  const text = decodeText(truncated ? trimPartialChar(bytes) : bytes)
  if (text === null) return { diff: BINARY_SENTENCE, additions: 0 }
  const body = text.endsWith('\n') ? text.slice(0, -1) : text
  const lines = text === '' ? [] : body.split('\n')
  let diff = `--- /dev/null\n+++ b/${path}\n`
  for (const l of lines) diff += `+${l}\n`
  if (truncated) diff += `${TRUNCATED_MARKER}\n`
  return { diff, additions: lines.length }
}

const strict = new TextDecoder('utf-8', { fatal: true })

/** UTF-8 text, or null for anything binary. */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null
  try {
    return strict.decode(bytes)
  } catch {
    return null
  }
}

/** Drops an incomplete UTF-8 sequence the cap cut in half, so a cut is not mistaken for binary. */
function trimPartialChar(b: Buffer): Buffer {
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const c = b[b.length - back]
    if ((c & 0xc0) === 0x80) continue // continuation byte: keep looking for the lead
    if (c < 0x80) return b
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1
    return need > back ? b.subarray(0, b.length - back) : b
  }
  return b
}
