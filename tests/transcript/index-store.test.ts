// Stored line indexes: a second open of the same large file counts nothing it already counted;
// appended lines are counted on top; a corrupt, stale or foreign index is rebuilt, never trusted.
import { describe, test, expect, beforeEach, afterEach } from 'vitest'
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TranscriptFile } from '../../plugins/transcript/transcript-file.ts'
import { countClaudeLine, normalizeClaudeLine } from '../../plugins/kind-claude/transcript/normalize.ts'

let dir: string
let file: string
let store: { dir: string; key: string }
let counted = 0
const counter = (line: string) => {
  counted++
  return countClaudeLine(line)
}

const lines = (from: number, to: number) => {
  const pad = 'x'.repeat(600)
  const out: string[] = []
  for (let i = from; i < to; i++)
    out.push(
      i % 2
        ? JSON.stringify({ type: 'user', uuid: `u${i}`, message: { role: 'user', content: `prompt ${i} ${pad}` } })
        : JSON.stringify({
            type: 'assistant',
            uuid: `a${i}`,
            message: {
              role: 'assistant',
              content: [
                { type: 'text', text: `answer ${i}` },
                { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `echo ${i}` } },
              ],
            },
          }),
    )
  return out.join('\n') + '\n'
}

/** Every file a test opened, so cleanup can wait for their background index writes. */
let files: TranscriptFile[] = []
const opened = async () => {
  counted = 0
  const f = new TranscriptFile(file, normalizeClaudeLine, counter, store)
  files.push(f)
  await f.refresh()
  return f
}
const stored = () => readdirSync(store.dir).filter((n) => n.endsWith('.idx'))
const waitStored = async () => {
  await expect.poll(stored, { timeout: 10_000 }).toHaveLength(1)
  // Written whole under a temp name and renamed: once listed it is complete.
  return join(store.dir, stored()[0])
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tindex-'))
  file = join(dir, 'session.jsonl')
  store = { dir: join(dir, 'index'), key: 'claude' }
  writeFileSync(file, lines(0, 3000)) // about 2 MB: over the size worth storing
})
// A rebuild at a test's end may still be writing its index in the background.
afterEach(async () => {
  await Promise.all(files.map((f) => f.saving))
  files = []
  rmSync(dir, { recursive: true, force: true })
})

describe('stored transcript index', () => {
  test('a second open counts nothing, pages read the same entries; appends are counted on top', async () => {
    const a = await opened()
    expect(counted).toBe(3000)
    expect(a.total).toBe(4500)
    await waitStored()
    const b = await opened()
    expect(counted).toBe(0)
    expect(b.total).toBe(4500)
    expect(await b.read(1, 4500)).toEqual(await a.read(1, 4500))
    appendFileSync(file, lines(3000, 3010))
    const c = await opened()
    expect(counted).toBe(10)
    expect(c.total).toBe(4515)
    const fresh = new TranscriptFile(file, normalizeClaudeLine)
    await fresh.refresh()
    expect(await c.read(4400, 4515)).toEqual(await fresh.read(4400, 4515))
  })

  test('a corrupt index is deleted and rebuilt', async () => {
    await opened()
    const path = await waitStored()
    const bytes = readFileSync(path)
    writeFileSync(path, bytes.subarray(0, bytes.length - 5))
    const b = await opened()
    expect([counted, b.total]).toEqual([3000, 4500])
    writeFileSync(path, 'not an index')
    const c = await opened()
    expect([counted, c.total]).toEqual([3000, 4500])
  })

  test('a file rewritten under the same name is counted again (stale index never trusted)', async () => {
    await opened()
    await waitStored()
    // Same first block, different lines after it: the index's line boundary no longer holds.
    const text = readFileSync(file, 'utf8')
    writeFileSync(file, text.slice(0, 5000) + 'y'.repeat(text.length - 5000 - 1) + '\n')
    const b = await opened()
    expect(counted).toBeGreaterThan(0)
    expect(b.total).toBe(
      await (async () => {
        const fresh = new TranscriptFile(file, normalizeClaudeLine)
        await fresh.refresh()
        return fresh.total
      })(),
    )
    // Shorter than indexed: rebuilt from the start.
    writeFileSync(file, lines(0, 2000))
    const c = await opened()
    expect([counted, c.total]).toEqual([2000, 3000])
  })

  test('another reader of the same file does not share its counts', async () => {
    await opened()
    await waitStored()
    store = { ...store, key: 'other' }
    await opened()
    expect(counted).toBe(3000)
    // Its own index is written in the background: let it land before the folder is removed.
    await expect.poll(stored, { timeout: 10_000 }).toHaveLength(2)
  })
})
