import { openSync, readSync, closeSync } from 'node:fs'

/** Frontmatter is read from the first 16 KiB only. */
export const FRONTMATTER_BYTES = 16 * 1024

/**
 * The flat `key: value` frontmatter of a command or skill file: the first non-empty line must be
 * `---`, reading stops at the next `---`; indented and `#` lines are skipped; keys are lower-cased;
 * one layer of matching quotes is removed; whitespace collapses; empty values are dropped.
 */
export function parseFrontmatter(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  const lines = text.split(/\r?\n/)
  let i = 0
  while (i < lines.length && lines[i].trim() === '') i++
  if (lines[i]?.trim() !== '---') return out
  for (i++; i < lines.length; i++) {
    const line = lines[i]
    if (line.trim() === '---') break
    if (/^\s/.test(line) || line.trim().startsWith('#')) continue
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const key = line.slice(0, colon).trim().toLowerCase()
    let value = line.slice(colon + 1).trim()
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) value = value.slice(1, -1)
    value = value.replace(/\s+/g, ' ').trim()
    if (key && value) out[key] = value
  }
  return out
}

/** The head of a file, capped, as UTF-8; '' when unreadable. */
export function readHead(path: string, bytes = FRONTMATTER_BYTES): string {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    const buf = Buffer.alloc(bytes)
    const n = readSync(fd, buf, 0, bytes, 0)
    return buf.subarray(0, n).toString('utf8')
  } catch {
    return ''
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
