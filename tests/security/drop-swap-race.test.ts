import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs'
import { basename, join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { tempDir } from '../diff/repo.ts'
import { shellPane } from '../diff/panes.ts'
import { PNG } from '../attachments/samples.ts'

/**
 * The drop directory swapped for a symlink between the bridge's check and its writes: the
 * `.part` open and the final rename followed whatever the path had become, so uploads racing a
 * swapper landed outside the pane's tree. While `.herdr-bridge` flips between a real directory
 * and a link to a directory outside, nothing may ever be written there, no `.part` may be left
 * behind, and every upload answered 200 must be in the tree.
 */

let stack: Stack
let root: string
let cwd: string
let outside: string
let pane: string
let stop = false
let swaps = 0

beforeAll(async () => {
  stack = await startStack()
  root = tempDir('bridge-drop-swap-')
  cwd = join(root, 'tree')
  outside = join(root, 'outside')
  mkdirSync(join(cwd, '.herdr-bridge', 'images'), { recursive: true })
  mkdirSync(join(outside, 'images'), { recursive: true })
  ;({ pane } = await shellPane(stack, cwd))
})
afterAll(async () => {
  stop = true
  await stack?.close()
  rmSync(root, { recursive: true, force: true })
})

function startSwapper(): () => void {
  const top = join(cwd, '.herdr-bridge')
  let strays = 0
  // The bridge may make a fresh `.herdr-bridge` in the moment the path is empty: move it aside
  // (inside the tree) and go on.
  const clear = () => renameSync(top, join(cwd, `.stray-${strays++}`))
  const retry = (step: () => void) => {
    try {
      step()
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EISDIR') throw err
      clear()
      step()
    }
  }
  // Flip between ticks of the event loop, so every await of the upload path can see either state.
  const flip = () => {
    if (stop) return
    if (swaps % 2 === 0) {
      renameSync(top, `${top}.real`)
      retry(() => symlinkSync(outside, top))
    } else {
      unlinkSync(top)
      retry(() => renameSync(`${top}.real`, top))
    }
    swaps++
    // The real directory stays a little longer, so some uploads can finish under load too.
    if (swaps % 2 === 0) setTimeout(flip, 1)
    else setImmediate(flip)
  }
  setImmediate(flip)
  return () => {
    stop = true
    if (swaps % 2 === 1) {
      unlinkSync(top)
      retry(() => renameSync(`${top}.real`, top))
    }
  }
}

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)).map((n) => `${e.name}/${n}`) : [e.name]))

describe('the drop directory swapped for a symlink during an upload', () => {
  test('nothing is written outside the tree, no .part is left, every 200 is where it says', async () => {
    const end = startSwapper()
    const statuses = new Map<number, number>()
    const kept: string[] = []
    // At least 4 s of racing and a few uploads through it (at most 40 s on a loaded machine).
    const start = Date.now()
    while (Date.now() - start < 4000 || (kept.length < 5 && Date.now() - start < 40_000)) {
      const res = await stack.bridge.request(`/image?pane=${encodeURIComponent(pane)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: PNG,
      })
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      if (res.status === 200) kept.push((await res.json()).path)
      else await res.text()
    }
    end()
    expect(swaps).toBeGreaterThan(100)
    expect(walk(outside)).toEqual([])
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 409 && s !== 500)).toEqual([])
    expect(kept.length).toBeGreaterThan(0)
    // A 200 names the file where the bridge put it; the swapper may have moved it since, but
    // only within the tree.
    const inTree = walk(cwd)
    expect(inTree.filter((n) => n.endsWith('.part'))).toEqual([])
    const images = join(cwd, '.herdr-bridge', 'images')
    for (const p of kept) {
      expect(p.startsWith(`${images}/`)).toBe(true)
      expect(inTree.some((n) => n.endsWith(`/images/${basename(p)}`))).toBe(true)
    }
  }, 60_000)
})
