/**
 * Opening a file inside a work tree without a check-then-use race. A realpath check followed by
 * open() can be beaten by swapping a directory on the path for a symlink in between (O_NOFOLLOW
 * guards only the last component). So the file is opened first, then judged: the descriptor's
 * device and inode must be those of the file the resolved path names now, and that path must
 * lie under `base` and outside its `.git` (repository internals: `.git/config` may hold a
 * remote's credentials). Sizes come from the descriptor, never from a second lookup.
 */
import { lstat, mkdir, open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises'
import { constants, type Stats } from 'node:fs'
import { join, relative, isAbsolute, sep } from 'node:path'

export class OutsideTree extends Error {}

/** A path relative to a work tree that is the tree itself, lies above it, or enters `.git` (`..notes` is a name, not an escape). */
export function leavesTree(rel: string): boolean {
  const parts = rel.split(sep)
  return rel === '' || parts[0] === '..' || isAbsolute(rel) || parts.includes('.git')
}

const inTree = (base: string, p: string) => !leavesTree(relative(base, p))

/**
 * Opens `file` (a path in the work tree whose real directory is `base`) read-only, never
 * following a final symlink and never blocking on a fifo. Throws OutsideTree when what was
 * opened is not a file of the tree (a component swapped for a link meanwhile, out of the tree
 * or into `.git`); the handle is closed then.
 */
export async function openConfined(file: string, base: string): Promise<{ fh: FileHandle; st: Stats }> {
  const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const st = await fh.stat()
    const opened = await readlink(`/proc/self/fd/${fh.fd}`).catch(() => null)
    if (opened !== null) {
      if (!inTree(base, opened)) throw new OutsideTree(`${file} is not a file of ${base}`)
      return { fh, st }
    }
    const real = await realpath(file)
    const named = await stat(real)
    if (!inTree(base, real) || named.dev !== st.dev || named.ino !== st.ino) throw new OutsideTree(`${file} is not a file of ${base}`)
    return { fh, st }
  } catch (err) {
    await fh.close()
    throw err
  }
}

/** Up to `max` bytes from the start of an opened file; fewer when it ends first (or grew since a stat). */
export async function readUpTo(fh: FileHandle, max: number): Promise<Buffer> {
  const buf = Buffer.alloc(max)
  let got = 0
  while (got < max) {
    const { bytesRead } = await fh.read(buf, got, max - got, got)
    if (!bytesRead) break
    got += bytesRead
  }
  return buf.subarray(0, got)
}

/**
 * A directory held open by its descriptor. On Linux every name is reached through
 * `/proc/self/fd/N/<name>`, which the kernel resolves to the directory that was opened (an
 * openat in all but name), so swapping the path for a symlink later changes nothing. Elsewhere
 * names are reached by path and `verify` narrows, but does not close, the window.
 */
export interface HeldDir {
  /** The confined path the directory was opened at. */
  readonly path: string
  /** A path that reaches `name` inside the held directory. */
  at(name: string): string
  /** Throws DirMoved unless the held directory is still the one at `path`. */
  verify(): Promise<void>
  close(): Promise<void>
}

export class NotADirectory extends Error {
  constructor(readonly path: string) {
    super(`${path} is a symlink or not a directory`)
  }
}
export class DirMoved extends Error {
  constructor(readonly path: string) {
    super(`${path} moved while in use`)
  }
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY
const procPath = (fh: FileHandle) => `/proc/self/fd/${fh.fd}`

/**
 * Opens the real directory of `base` and walks `parts` below it one component at a time, each
 * opened with O_DIRECTORY|O_NOFOLLOW relative to the one before (made first, with `mode`, when
 * `create`). Throws NotADirectory for a component that is a symlink or a file, DirMoved when
 * `base` changed between resolving and opening it.
 */
export async function holdDir(base: string, parts: string[], opts: { create?: boolean; mode?: number } = {}): Promise<HeldDir> {
  const real = await realpath(base)
  let fh = await open(real, DIR_FLAGS)
  let path = real
  const proc = (await readlink(procPath(fh)).catch(() => null)) !== null
  const at = (name: string) => (proc ? `${procPath(fh)}/${name}` : join(path, name))
  const verify = async () => {
    if (proc) {
      if ((await readlink(procPath(fh)).catch(() => null)) !== path) throw new DirMoved(path)
      return
    }
    const [held, named, resolved] = await Promise.all([fh.stat(), lstat(path).catch(() => null), realpath(path).catch(() => null)])
    if (!named || resolved !== path || named.dev !== held.dev || named.ino !== held.ino) throw new DirMoved(path)
  }
  try {
    await verify()
    for (const part of parts) {
      if (opts.create) {
        await mkdir(at(part), opts.mode).catch((err) => {
          if (err.code !== 'EEXIST') throw err
        })
      }
      const next = await open(at(part), DIR_FLAGS | constants.O_NOFOLLOW).catch((err) => {
        if (err.code === 'ELOOP' || err.code === 'ENOTDIR') throw new NotADirectory(join(path, part))
        throw err
      })
      await fh.close()
      fh = next
      path = join(path, part)
      await verify()
    }
  } catch (err) {
    await fh.close()
    throw err
  }
  return { path, at, verify, close: () => fh.close() }
}
