import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { spawn, type ChildProcess } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { listDirectory, resolveBrowsePath } from '../../plugins/browse/list.ts'

/**
 * A directory swapped for a symlink between `/browse`'s realpath check and its listing: the
 * listing followed the link and named directories outside the browse roots. While another
 * process flips `sub` between a real directory and a link to a directory outside, no listing
 * may name what is there.
 */

let root: string
let tree: string
let swapper: ChildProcess
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bridge-browse-swap-')))
  tree = join(root, 'tree')
  mkdirSync(join(tree, 'sub', 'inside'), { recursive: true })
  mkdirSync(join(root, 'secret', 'SECRETDIR'), { recursive: true })
  // The listing is synchronous, so the swapper runs in another process, flipping as fast as it can.
  const script = `
    const fs = require('node:fs'); const [sub, real, secret] = process.argv.slice(1)
    for (let i = 0; ; i++) {
      if (i % 2 === 0) { fs.renameSync(sub, real); fs.symlinkSync(secret, sub) }
      else { fs.unlinkSync(sub); fs.renameSync(real, sub) }
    }`
  swapper = spawn(process.execPath, ['-e', script, join(tree, 'sub'), join(tree, 'sub.real'), join(root, 'secret')], { stdio: 'ignore' })
})
afterAll(() => {
  swapper.kill('SIGKILL')
  rmSync(root, { recursive: true, force: true })
})

describe('a directory swapped for a symlink during a listing', () => {
  test('/browse never names a directory outside the roots', () => {
    const roots = [{ path: tree, label: 'tree', kind: 'project' as const }]
    let secret = 0
    let inside = 0
    const until = Date.now() + 4000
    while (Date.now() < until) {
      try {
        const dir = resolveBrowsePath(join(tree, 'sub'), roots)
        const names = listDirectory(dir, roots, { hidden: true, openWorkspaces: new Map() }).entries.map((e) => e.name)
        if (names.includes('SECRETDIR')) secret++
        if (names.includes('inside')) inside++
      } catch {}
    }
    expect(secret).toBe(0)
    expect(inside).toBeGreaterThan(0)
  })
})
