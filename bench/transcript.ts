/**
 * /agent-transcript over the real bridge with a large claude transcript (default 1 000 000 lines,
 * about 1 GB, as the issue asks; BENCH_TRANSCRIPT_LINES scales it). Reports time to
 * backlog_complete on first connect (indexing pass included) and on reconnect (index cached),
 * 20 consecutive load_older pages, and the bridge process's RSS, against the floor of reading
 * the file's last 1 MB with a plain fs.read in the same run.
 */
import { mkdirSync, openSync, writeSync, closeSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { startStack } from '../tests/harness/stack.ts'
import { encodeCwd } from '../plugins/kind-claude/transcript/locate.ts'
import { connect } from '../tests/transcript/ws-client.ts'

const LINES = Number(process.env.BENCH_TRANSCRIPT_LINES ?? 1_000_000)

function writeTranscript(path: string, lines: number): void {
  const fd = openSync(path, 'w')
  const pad = 'lorem ipsum dolor sit amet '.repeat(30)
  let batch: string[] = []
  for (let i = 1; i <= lines; i++) {
    const ts = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString()
    batch.push(
      i % 2
        ? JSON.stringify({ type: 'user', uuid: `u${i}`, parentUuid: `a${i - 1}`, timestamp: ts, message: { role: 'user', content: `prompt ${i} ${pad}` } })
        : JSON.stringify({ type: 'assistant', uuid: `a${i}`, parentUuid: `u${i - 1}`, timestamp: ts, message: { role: 'assistant', content: [{ type: 'text', text: `answer ${i} ${pad}` }, { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `echo ${i}`, description: 'print' } }] } }),
    )
    if (batch.length === 5000) {
      writeSync(fd, batch.join('\n') + '\n')
      batch = []
    }
  }
  if (batch.length) writeSync(fd, batch.join('\n') + '\n')
  closeSync(fd)
}

async function rawTail(path: string): Promise<number> {
  const t = performance.now()
  const fh = await open(path, 'r')
  const size = (await fh.stat()).size
  const len = Math.min(size, 1 << 20)
  const buf = Buffer.allocUnsafe(len)
  await fh.read(buf, 0, len, size - len)
  await fh.close()
  return performance.now() - t
}

const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`

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

    await rawTail(file) // warm the page cache for a fair floor
    const floor = Math.min(await rawTail(file), await rawTail(file), await rawTail(file))
    const rssBefore = process.memoryUsage().rss

    const backlog = async () => {
      const t = performance.now()
      const c = await connect(url)
      const hello = await c.next(600_000)
      await c.until((f) => f.type === 'backlog_complete', 600_000)
      return { c, hello, ms: performance.now() - t }
    }
    const first = await backlog()
    first.c.close()
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
    const rss = process.memoryUsage().rss
    const peak = process.resourceUsage().maxRSS * 1024

    console.log(`transcript: ${LINES} lines, ${mb(size)}, ${first.hello.total} entries`)
    console.log(`floor: fs.read of the last 1 MB ${floor.toFixed(2)} ms`)
    console.log(`first connect → backlog_complete (indexing included): ${first.ms.toFixed(0)} ms → ${(first.ms / floor).toFixed(0)}×`)
    console.log(`reconnect → backlog_complete (index cached): ${again.ms.toFixed(1)} ms → ${(again.ms / floor).toFixed(1)}×`)
    console.log(`20 × load_older(150): ${pages.toFixed(1)} ms, ${(pages / 20).toFixed(2)} ms/page → ${(pages / 20 / floor).toFixed(1)}× per page`)
    console.log(`RSS (bridge + bench client in one process): before ${mb(rssBefore)}, after ${mb(rss)}, peak ${mb(peak)}; file ${mb(size)}`)
  } finally {
    await stack.close()
  }
}
