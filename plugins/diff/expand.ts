/**
 * GET /diff/expand: a slice of a working-tree file, confined to the pane's tree.
 */
import { realpath } from 'node:fs/promises'
import { leavesTree, openConfined, OutsideTree, readUpTo } from '../../lib/open-confined.ts'
import { isAbsolute, join, relative } from 'node:path'
import { HttpError } from '../../core/respond.ts'
import { decodeText } from '../../lib/git/untracked.ts'
import { realLocation } from '../../lib/real-location.ts'

export const EXPAND_MAX_LINES = 400
export const EXPAND_MAX_BYTES = 4 * 1024 * 1024

export interface ExpandSlice {
  path: string
  start: number
  lines: string[]
  eof: boolean
  total: number
}

/** The first line, ≥ 1; anything unreadable is 1. */
export function expandStart(start: unknown): number {
  const s = Math.trunc(Number(start))
  return Number.isFinite(s) && s >= 1 ? s : 1
}

/** The number of lines, clamped to 1..400; anything unreadable is 400. */
export function expandCount(count: unknown): number {
  const c = Math.trunc(Number(count))
  return Number.isFinite(c) ? Math.min(EXPAND_MAX_LINES, Math.max(1, c)) : EXPAND_MAX_LINES
}

/** start ≥ 1; count 1..400; anything unreadable falls back to the default. */
export function clampWindow(start: unknown, count: unknown): { start: number; count: number } {
  return { start: expandStart(start), count: expandCount(count) }
}

export function sliceLines(text: string, start: number, count: number): { lines: string[]; eof: boolean; total: number } {
  const all = text === '' ? [] : (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n')
  const lines = all.slice(start - 1, start - 1 + count)
  return { lines, eof: start - 1 + count >= all.length, total: all.length }
}

/**
 * Resolves `path` (repo-relative, as in files[].path) under the tree at real path `base` after
 * following symlinks; an absolute path, `..` escapes, a symlink leading out, or anything inside
 * `.git` is refused. A first check for a clear answer; `openConfined` judges again what it
 * actually opened, against the same `base`.
 */
export async function confine(base: string, path: string): Promise<string> {
  const escapes = () => new HttpError(400, `bad path: ${path} escapes the pane's tree`)
  if (!path || isAbsolute(path) || path.includes('\0')) throw escapes()
  const nominal = join(base, path)
  const rel = relative(base, nominal)
  if (leavesTree(rel)) throw escapes()
  const outside = (p: string) => leavesTree(relative(base, p))
  let real: string
  try {
    real = await realpath(nominal)
  } catch {
    // Missing: judged by where its existing part leads, so a symlink out of the tree cannot
    // probe which files exist outside it.
    if (outside(await realLocation(nominal))) throw escapes()
    throw new HttpError(404, `no such file: ${path}`)
  }
  if (outside(real)) throw escapes()
  return real
}

export async function readSlice(tree: string, path: string, start: number, count: number): Promise<ExpandSlice> {
  const base = await realpath(tree)
  const file = await confine(base, path)
  const opened = await openConfined(file, base).catch((err) => {
    if (err instanceof OutsideTree) throw new HttpError(400, `bad path: ${path} escapes the pane's tree`)
    throw new HttpError(404, `no such file: ${path}`)
  })
  const { fh, st } = opened
  if (!st.isFile()) {
    await fh.close()
    throw new HttpError(404, `no such file: ${path}`)
  }
  if (st.size > EXPAND_MAX_BYTES) {
    await fh.close()
    throw new HttpError(415, `not a text file: ${path}`)
  }
  let buf: Buffer
  try {
    // Read at most the cap + 1 even if the file grew since the stat.
    buf = await readUpTo(fh, Math.min(st.size, EXPAND_MAX_BYTES) + 1)
    if (buf.length > EXPAND_MAX_BYTES) throw new HttpError(415, `not a text file: ${path}`)
  } finally {
    await fh.close()
  }
  const text = decodeText(buf)
  if (text === null) throw new HttpError(415, `not a text file: ${path}`)
  return { path, start, ...sliceLines(text, start, count) }
}
