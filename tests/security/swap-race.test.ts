import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readSlice } from '../../plugins/diff/expand.ts'
import { BINARY_SENTENCE, synthesizeUntracked } from '../../lib/git/untracked.ts'

/**
 * A directory on the path swapped between the check and the open: `/diff/expand` and the
 * untracked part of `/diff` checked with realpath and then opened the path, so a reader racing a
 * swapper read files outside the pane's tree. While a swapper flips `sub` between a real
 * directory and something else, no read may ever return what that something else holds: a
 * secret outside the tree, the repository's `.git/config` (a link into `.git` stays in the tree,
 * so only the `.git` rule applied to what was opened refuses it), or a device's bytes.
 */

let root: string
let tree: string
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bridge-swap-')))
  tree = join(root, 'tree')
  mkdirSync(join(tree, 'sub'), { recursive: true })
  writeFileSync(join(tree, 'sub', 'f.txt'), 'inside\n')
  writeFileSync(join(tree, 'sub', 'config'), 'inside\n')
  mkdirSync(join(root, 'secret'))
  writeFileSync(join(root, 'secret', 'f.txt'), 'SECRET\n')
  mkdirSync(join(tree, '.git'))
  writeFileSync(join(tree, '.git', 'config'), '[remote "origin"]\n\turl = https://user:SECRET@example.com/repo.git\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/**
 * Flips `sub` between the real directory and what `swapIn` puts there, between ticks of the event
 * loop (so every await of a reader can see either state), while `read` runs for 4 s. Counts the
 * reads that saw the inside file and those that saw `marker`.
 */
async function race(swapIn: (sub: string) => void, swapOut: (sub: string) => void, read: () => Promise<string>, marker: string) {
  const sub = join(tree, 'sub')
  let stop = false
  let swaps = 0
  const flip = () => {
    if (stop) return
    if (swaps % 2 === 0) {
      renameSync(sub, join(tree, 'sub.real'))
      swapIn(sub)
    } else {
      swapOut(sub)
      renameSync(join(tree, 'sub.real'), sub)
    }
    swaps++
    setImmediate(flip)
  }
  setImmediate(flip)
  let inside = 0
  let leaked = 0
  try {
    const until = Date.now() + 4000
    while (Date.now() < until) {
      const got = await read().catch(() => '')
      if (got.includes(marker)) leaked++
      if (got.includes('inside')) inside++
    }
  } finally {
    stop = true
    await new Promise((r) => setImmediate(r))
    if (swaps % 2 === 1) {
      swapOut(sub)
      renameSync(join(tree, 'sub.real'), sub)
    }
  }
  return { inside, leaked }
}

const linkTo = (target: string) => [(sub: string) => symlinkSync(target, sub), (sub: string) => unlinkSync(sub)] as const
const expand = (path: string) => async () => (await readSlice(tree, path, 1, 10)).lines.join('\n')
const untracked = (path: string) => async () => (await synthesizeUntracked(join(tree, path), path, tree)).diff

describe('a directory swapped for a symlink out of the tree during a read', () => {
  test('/diff/expand never reads outside the tree', async () => {
    const r = await race(...linkTo(join(root, 'secret')), expand('sub/f.txt'), 'SECRET')
    expect(r.leaked).toBe(0)
    expect(r.inside).toBeGreaterThan(0)
  })

  test('an untracked file never reads outside the tree', async () => {
    const r = await race(...linkTo(join(root, 'secret')), untracked('sub/f.txt'), 'SECRET')
    expect(r.leaked).toBe(0)
    expect(r.inside).toBeGreaterThan(0)
  })
})

describe('a directory swapped for a symlink into .git during a read', () => {
  test('/diff/expand never reads .git/config', async () => {
    const r = await race(...linkTo(join(tree, '.git')), expand('sub/config'), 'SECRET')
    expect(r.leaked).toBe(0)
    expect(r.inside).toBeGreaterThan(0)
  })

  test('an untracked file never reads .git/config', async () => {
    const r = await race(...linkTo(join(tree, '.git')), untracked('sub/config'), 'SECRET')
    expect(r.leaked).toBe(0)
    expect(r.inside).toBeGreaterThan(0)
  })
})

/** Device nodes take privilege to make (root here); elsewhere the test below cannot be set up. */
function makeZeroDevice(path: string): boolean {
  try {
    execFileSync('mknod', [path, 'c', '1', '5'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

describe('a file swapped for a device node during a read', () => {
  // A fifo or a directory swapped in fails the positioned read anyway (ESPIPE, EISDIR); a
  // character device reads, so only the type of what was opened keeps it out.
  const other = () => join(tree, 'other')
  const canMknod = (() => {
    const probe = join(tmpdir(), `bridge-mknod-${process.pid}`)
    const ok = makeZeroDevice(probe)
    rmSync(probe, { force: true })
    return ok
  })()

  test.skipIf(!canMknod)('an untracked file is read only when what was opened is a regular file', async () => {
    mkdirSync(other())
    expect(makeZeroDevice(join(other(), 'f.txt'))).toBe(true)
    const r = await race(
      (sub) => renameSync(other(), sub),
      (sub) => renameSync(sub, other()),
      untracked('sub/f.txt'),
      BINARY_SENTENCE,
    )
    expect(r.leaked).toBe(0)
    expect(r.inside).toBeGreaterThan(0)
  })
})
