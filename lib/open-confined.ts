/**
 * Opening a file inside a tree without a check-then-use race. A realpath check followed by
 * open() can be beaten by swapping a directory on the path for a symlink in between (O_NOFOLLOW
 * guards only the last component). So the file is opened first, then judged: the descriptor's
 * device and inode must be those of the file the resolved path names now, and that path must
 * lie under `base`. Sizes come from the descriptor, never from a second lookup.
 */
import { open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises'
import { constants, type Stats } from 'node:fs'
import { relative, isAbsolute, sep } from 'node:path'

export class OutsideTree extends Error {}

const under = (base: string, p: string) => {
  const rel = relative(base, p)
  return rel !== '' && rel.split(sep)[0] !== '..' && !isAbsolute(rel)
}

/**
 * Opens `file` (a path under the real directory `base`) read-only, never following a final
 * symlink and never blocking on a fifo. Throws OutsideTree when what was opened is not the
 * file under `base` (a component swapped for a link meanwhile); the handle is closed then.
 */
export async function openConfined(file: string, base: string): Promise<{ fh: FileHandle; st: Stats }> {
  const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const st = await fh.stat()
    const opened = await readlink(`/proc/self/fd/${fh.fd}`).catch(() => null)
    if (opened !== null) {
      if (!under(base, opened)) throw new OutsideTree(`${file} is not under ${base}`)
      return { fh, st }
    }
    const real = await realpath(file)
    const named = await stat(real)
    if (!under(base, real) || named.dev !== st.dev || named.ino !== st.ino) throw new OutsideTree(`${file} is not under ${base}`)
    return { fh, st }
  } catch (err) {
    await fh.close()
    throw err
  }
}
