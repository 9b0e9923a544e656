import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createReadStream, mkdirSync, openSync, writeSync, closeSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import { encodeCwd } from '../../plugins/kind-claude/transcript/locate.ts'
import { countClaudeLine, normalizeClaudeLine } from '../../plugins/kind-claude/transcript/normalize.ts'
import { TranscriptFile, MAX_LINE, WORKER_MIN } from '../../plugins/transcript/transcript-file.ts'
import { workerPasses } from '../../plugins/transcript/count-in-worker.ts'
import { connect } from './ws-client.ts'

// Tens of MB are written, counted twice and paged: slow on a loaded 2-core machine.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })

let stack: Stack
let file: string
let cwd: string

/** Every shape the counter tells apart: multi-block answers, dropped records, blanks, junk, a line too long to parse. */
function line(i: number): string {
  const pad = 'lorem ipsum dolor sit amet '.repeat(i % 7)
  const ts = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString()
  switch (i % 9) {
    case 0:
      return JSON.stringify({ type: 'user', uuid: `u${i}`, timestamp: ts, message: { role: 'user', content: `prompt ${i} ${pad}` } })
    case 1:
      return JSON.stringify({
        type: 'assistant',
        uuid: `a${i}`,
        timestamp: ts,
        message: {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: i % 2 ? `think ${i}` : ' ' },
            { type: 'text', text: `answer ${i} ${pad}` },
            { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `echo ${i}` } },
          ],
        },
      })
    case 2:
      return JSON.stringify({
        type: 'user',
        uuid: `r${i}`,
        timestamp: ts,
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i - 1}`, content: `${i}\n` }] },
      })
    case 3:
      return JSON.stringify({ type: 'progress', uuid: `p${i}` })
    case 4:
      return ''
    case 5:
      return `not json ${i}`
    case 6:
      return JSON.stringify({ type: 'system', subtype: 'informational', content: i % 2 ? `<b>note ${i}</b>` : '<x></x>', uuid: `s${i}` })
    case 7:
      return JSON.stringify({ type: 'queue-operation', operation: i % 2 ? 'remove' : 'enqueue', content: `queued ${i}` })
    default:
      return JSON.stringify({ type: 'assistant', uuid: `b${i}`, timestamp: ts, message: { role: 'assistant', content: `plain ${i}` } })
  }
}

const LINES = 120_000

/** Every entry the file holds, by seq, read line by line without an index: what pages must equal. */
async function allEntries(path: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = []
  for await (const l of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    const len = Buffer.byteLength(l)
    const raws = len > MAX_LINE ? [{ id: '', role: 'system', kind: 'message', text: `[line of ${len} bytes not shown]`, parsed: false }] : l.trim() ? normalizeClaudeLine(l) : []
    for (const raw of raws) out.push({ ...raw, id: raw.id || `seq-${out.length + 1}`, seq: out.length + 1 })
  }
  return out
}
const normalizedTotal = async (path: string) => (await allEntries(path)).length

beforeAll(async () => {
  stack = await startStack()
  cwd = join(stack.home, 'proj')
  mkdirSync(cwd, { recursive: true })
  const dir = join(stack.home, '.claude', 'projects', encodeCwd(cwd))
  mkdirSync(dir, { recursive: true })
  file = join(dir, 'big.jsonl')
  const fd = openSync(file, 'w')
  let chunk = ''
  for (let i = 0; i < LINES; i++) {
    chunk += line(i) + '\n'
    if (i === LINES / 2) chunk += JSON.stringify({ type: 'user', uuid: 'huge', message: { role: 'user', content: 'x'.repeat(MAX_LINE + 10) } }) + '\n'
    if (chunk.length > 1 << 20) {
      writeSync(fd, chunk)
      chunk = ''
    }
  }
  writeSync(fd, chunk)
  closeSync(fd)
})
afterAll(async () => stack?.close())

describe('the first-connect counting pass in a worker thread', () => {
  it('gives the total and pages the main-thread count gives, and ran in a worker', async () => {
    const { size } = await import('node:fs/promises').then((fs) => fs.stat(file))
    expect(size).toBeGreaterThan(Math.max(WORKER_MIN, 20 << 20))
    const entries = await allEntries(file)
    const expected = entries.length
    // The same file counted on the main thread (no counter module), as before.
    const local = new TranscriptFile(file, normalizeClaudeLine, countClaudeLine)
    await local.refresh()
    expect(local.total).toBe(expected)

    const before = workerPasses()
    const r = await stack.sim.request('workspace.create', { cwd })
    const pane = r.root_pane.pane_id as string
    await reportBusyAgent(stack.sim, pane, { source: 'herdr:claude', agent: 'claude', state: 'working', agent_session_id: 'big' })
    const c = await connect(`${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`)
    const hello = await c.next(240_000)
    expect(hello).toMatchObject({ type: 'hello', total: expected, backlog_count: 150, oldest_loaded_seq: expected - 149, has_older: true })
    expect(workerPasses()).toBe(before + 1)
    const newest = (await c.take(150)).map((f) => f.entry)
    expect(newest).toEqual(entries.slice(expected - 150))
    expect(newest).toEqual(await local.read(expected - 149, expected))
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 150, has_more: true })

    // An older page from around the line too long to parse, where seqs would drift if counts differed.
    const mid = Math.floor(expected / 2) + 200
    c.send({ type: 'load_older', before_seq: mid, limit: 500 })
    const older = (await c.take(500)).map((f) => f.entry)
    expect(older).toEqual(entries.slice(mid - 501, mid - 1))
    expect(older).toEqual(await local.read(mid - 500, mid - 1))
    expect(older.some((e) => /^\[line of \d+ bytes not shown\]$/.test(e.text ?? ''))).toBe(true)
    expect(await c.next()).toEqual({ type: 'page_complete', requested_before_seq: mid, oldest_loaded_seq: mid - 500, has_older: true })
    c.close()
  })

  it('counts on the main thread when the counter module cannot load (a third-party kind), with the same result', async () => {
    const before = workerPasses()
    const missing = new URL('./no-such-counter.ts', import.meta.url).href
    const t = new TranscriptFile(file, normalizeClaudeLine, countClaudeLine, undefined, missing)
    await t.refresh()
    const local = new TranscriptFile(file, normalizeClaudeLine, countClaudeLine)
    await local.refresh()
    expect(t.total).toBe(local.total)
    expect(workerPasses()).toBe(before)
    expect(await t.read(local.total - 9, local.total)).toEqual(await local.read(local.total - 9, local.total))
  })

  it('a counter module in a worker counts exactly what the main thread counts (same file, no bridge)', async () => {
    const before = workerPasses()
    const counter = new URL('../../plugins/kind-claude/transcript/count.ts', import.meta.url).href
    const t = new TranscriptFile(file, normalizeClaudeLine, countClaudeLine, undefined, counter)
    await t.refresh()
    expect(workerPasses()).toBe(before + 1)
    expect(t.total).toBe(await normalizedTotal(file))
  })
})
