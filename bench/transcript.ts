/**
 * /agent-transcript over the real bridge with a large claude transcript (default 1 000 000 lines,
 * about 1 GB; BENCH_TRANSCRIPT_LINES scales it). The floor is one sequential read of the whole
 * file (1 MiB reads, page cache warm) in the same run. Reports time to backlog_complete on first
 * connect (the counting pass included; target ≤ 2× the floor), on reconnect (index in memory),
 * after a bridge restart (index from the data dir; target < 50 ms), 20 load_older pages, and the
 * RSS growth of the process across the first connect (target ≤ 32 MiB).
 */
import { mkdirSync, statSync, readdirSync, existsSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { startStack } from '../tests/harness/stack.ts'
import { startBridge } from '../tests/harness/bridge.ts'
import { encodeCwd } from '../plugins/kind-claude/transcript/locate.ts'
import { connect } from '../tests/transcript/ws-client.ts'
import { mb, writeJsonl } from './_jsonl-file.ts'

const LINES = Number(process.env.BENCH_TRANSCRIPT_LINES ?? 1_000_000)

function writeTranscript(path: string, lines: number): void {
  const pad = 'lorem ipsum dolor sit amet '.repeat(30)
  writeJsonl(path, lines, (i) => {
    const ts = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString()
    return i % 2
      ? JSON.stringify({ type: 'user', uuid: `u${i}`, parentUuid: `a${i - 1}`, timestamp: ts, message: { role: 'user', content: `prompt ${i} ${pad}` } })
      : JSON.stringify({
          type: 'assistant',
          uuid: `a${i}`,
          parentUuid: `u${i - 1}`,
          timestamp: ts,
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: `answer ${i} ${pad}` },
              { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `echo ${i}`, description: 'print' } },
            ],
          },
        })
  })
}

/** One sequential read of the whole file in 1 MiB reads: the floor. */
async function rawRead(path: string): Promise<number> {
  const t = performance.now()
  const fh = await open(path, 'r')
  const size = (await fh.stat()).size
  const buf = Buffer.allocUnsafe(1 << 20)
  for (let pos = 0; pos < size;) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos)
    if (bytesRead <= 0) break
    pos += bytesRead
  }
  await fh.close()
  return performance.now() - t
}

export async function run(): Promise<void> {
  const stack = await startStack()
  try {
    const cwd = join(stack.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    const dir = join(stack.home, '.claude', 'projects', encodeCwd(cwd))
    mkdirSync(dir, { recursive: true })
    const file = join(dir, 'big.jsonl')
    writeTranscript(file, LINES)
    const size = statSync(file).size
    const pane = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    await stack.sim.request('pane.send_text', { pane_id: pane, text: 'sleep 600\r' })
    await stack.sim.request('pane.report_agent', { pane_id: pane, source: 'herdr:claude', agent: 'claude', state: 'working', agent_session_id: 'big' })
    const url = `${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`

    await rawRead(file) // warm the page cache for a fair floor
    const floor = Math.min(await rawRead(file), await rawRead(file))
    globalThis.gc?.()
    const rssBefore = process.memoryUsage().rss

    const backlog = async (u = url) => {
      const t = performance.now()
      const c = await connect(u)
      const hello = await c.next(600_000)
      await c.until((f) => f.type === 'backlog_complete', 600_000)
      return { c, hello, ms: performance.now() - t }
    }
    const first = await backlog()
    first.c.close()
    const rssAfter = process.memoryUsage().rss
    const again = await backlog()
    let before = again.hello.oldest_loaded_seq as number
    const t = performance.now()
    for (let i = 0; i < 20; i++) {
      again.c.send({ type: 'load_older', before_seq: before, limit: 150 })
      const done = await again.c.until((f) => f.type === 'page_complete', 60_000)
      before = done.oldest_loaded_seq
    }
    const pages = performance.now() - t
    again.c.close()

    // Restart: the stored index is written in the background after the first count.
    const indexDir = join(stack.bridge.dataDir, 'transcript-index')
    const deadline = Date.now() + 120_000
    while (!(existsSync(indexDir) && readdirSync(indexDir).some((n) => n.endsWith('.idx'))) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    await stack.bridge.close()
    const second = await startBridge({ home: stack.home, dataDir: stack.bridge.dataDir })
    let restarted: number
    try {
      const r = await backlog(`${second.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${second.adminToken}`)
      r.c.close()
      if (r.hello.total !== first.hello.total) throw new Error(`total after restart ${r.hello.total}, before ${first.hello.total}`)
      restarted = r.ms
    } finally {
      await second.close()
    }

    const growth = (rssAfter - rssBefore) / 1048576
    console.log(`transcript: ${LINES} lines, ${mb(size)}, ${first.hello.total} entries`)
    console.log(`floor: one sequential read of the file ${floor.toFixed(0)} ms (${(size / 1048576 / (floor / 1000)).toFixed(0)} MB/s)`)
    console.log(`first connect → backlog_complete (counting pass included): ${first.ms.toFixed(0)} ms → ${(first.ms / floor).toFixed(2)}× floor   (target ≤ 2×)`)
    console.log(`reconnect → backlog_complete (index in memory): ${again.ms.toFixed(1)} ms`)
    console.log(`after a bridge restart → backlog_complete (stored index): ${restarted.toFixed(1)} ms   (target < 50 ms)`)
    console.log(`20 × load_older(150): ${pages.toFixed(1)} ms, ${(pages / 20).toFixed(2)} ms/page`)
    console.log(
      `RSS growth across the first connect: ${growth.toFixed(1)} MiB (before ${mb(rssBefore)}, after ${mb(rssAfter)}; bridge and bench client share the process)   (target ≤ 32 MiB)`,
    )
  } finally {
    await stack.close()
  }
}
