import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readSlice } from '../../plugins/diff/expand.ts'
import { synthesizeUntracked } from '../../lib/git/untracked.ts'

/**
 * A directory on the path swapped for a symlink between the check and the open: `/diff/expand`
 * and the untracked part of `/diff` checked with realpath and then opened the path, so a reader
 * racing a swapper read files outside the pane's tree. While a swapper flips `sub` between a real
 * directory and a link to a secret directory, no read may ever return the secret.
 */

let root: string
let tree: string
let stop = false
let swaps = 0
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bridge-swap-')))
  tree = join(root, 'tree')
  mkdirSync(join(tree, 'sub'), { recursive: true })
  writeFileSync(join(tree, 'sub', 'f.txt'), 'inside\n')
  mkdirSync(join(root, 'secret'))
  writeFileSync(join(root, 'secret', 'f.txt'), 'SECRET\n')
  // Flip between ticks of the event loop, so every await of a reader can see either state.
  const flip = () => {
    if (stop) return
    const sub = join(tree, 'sub')
    if (swaps % 2 === 0) {
      renameSync(sub, join(tree, 'sub.real'))
      symlinkSync(join(root, 'secret'), sub)
    } else {
      unlinkSync(sub)
      renameSync(join(tree, 'sub.real'), sub)
    }
    swaps++
    setImmediate(flip)
  }
  setImmediate(flip)
})
afterAll(() => {
  stop = true
  rmSync(root, { recursive: true, force: true })
})

async function race(read: () => Promise<string>): Promise<{ inside: number; secret: number }> {
  let inside = 0
  let secret = 0
  const until = Date.now() + 4000
  while (Date.now() < until) {
    const got = await read().catch(() => '')
    if (got.includes('SECRET')) secret++
    if (got.includes('inside')) inside++
  }
  return { inside, secret }
}

describe('a directory swapped for a symlink during a read', () => {
  test('/diff/expand never reads outside the tree', async () => {
    const r = await race(async () => (await readSlice(tree, 'sub/f.txt', 1, 10)).lines.join('\n'))
    expect(r.secret).toBe(0)
    expect(r.inside).toBeGreaterThan(0)
  })

  test('an untracked file never reads outside the tree', async () => {
    const r = await race(async () => (await synthesizeUntracked(join(tree, 'sub', 'f.txt'), 'sub/f.txt', tree)).diff)
    expect(r.secret).toBe(0)
    expect(r.inside).toBeGreaterThan(0)
  })
})
