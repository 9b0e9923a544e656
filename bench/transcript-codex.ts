/**
 * /agent-transcript over the real bridge with a large codex rollout (default 1 000 000 lines,
 * about 1 GB; BENCH_TRANSCRIPT_LINES scales it): the same figures as bench/transcript.ts for
 * claude — time to backlog_complete on first connect (indexing included) and on reconnect, 20
 * load_older pages, RSS — against the floor of reading the file's last 1 MB in the same run.
 */
import { mkdirSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { startStack } from '../tests/harness/stack.ts'
import { connect } from '../tests/transcript/ws-client.ts'
import { mb, writeJsonl } from './_jsonl-file.ts'

const LINES = Number(process.env.BENCH_TRANSCRIPT_LINES ?? 1_000_000)
const ID = '0199c0de-0000-7000-8000-00000000b16b'

function writeRollout(path: string, cwd: string, lines: number): void {
  const pad = 'lorem ipsum dolor sit amet '.repeat(30)
  const rec = (i: number, payload: unknown) => JSON.stringify({ timestamp: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(), type: 'response_item', payload })
  const item = (i: number): string => {
    switch (i % 4) {
      case 1:
        return rec(i, { type: 'message', role: 'user', content: [{ type: 'input_text', text: `prompt ${i} ${pad}` }] })
      case 2:
        return rec(i, { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `echo ${i} ${pad}`] }), call_id: `call_${i}` })
      case 3:
        return rec(i, {
          type: 'function_call_output',
          call_id: `call_${i - 1}`,
          output: JSON.stringify({ output: `${i} ${pad}\n`, metadata: { exit_code: 0, duration_seconds: 0 } }),
        })
      default:
        return rec(i, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${i} ${pad}` }] })
    }
  }
  // Line 1 is the session_meta record; item i is line i + 1.
  writeJsonl(path, lines, (n) =>
    n === 1 ? JSON.stringify({ timestamp: '2025-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: ID, cwd, cli_version: '0.46.0' } }) : item(n - 1),
  )
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

export async function run(): Promise<void> {
  const stack = await startStack()
  try {
    const cwd = join(stack.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    const dir = join(stack.home, '.codex', 'sessions', '2025', '01', '01')
    mkdirSync(dir, { recursive: true })
    const file = join(dir, `rollout-2025-01-01T00-00-00-${ID}.jsonl`)
    writeRollout(file, cwd, LINES)
    const size = statSync(file).size
    const pane = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    await stack.sim.request('pane.send_text', { pane_id: pane, text: 'sleep 600\r' })
    await stack.sim.request('pane.report_agent', { pane_id: pane, source: 'herdr:codex', agent: 'codex', state: 'working', agent_session_id: ID })
    const url = `${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`

    await rawTail(file)
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

    console.log(`codex rollout: ${LINES} lines, ${mb(size)}, ${first.hello.total} entries`)
    console.log(`floor: fs.read of the last 1 MB ${floor.toFixed(2)} ms`)
    console.log(`first connect → backlog_complete (indexing included): ${first.ms.toFixed(0)} ms → ${(first.ms / floor).toFixed(0)}×`)
    console.log(`reconnect → backlog_complete (index cached): ${again.ms.toFixed(1)} ms → ${(again.ms / floor).toFixed(1)}×`)
    console.log(`20 × load_older(150): ${pages.toFixed(1)} ms, ${(pages / 20).toFixed(2)} ms/page → ${(pages / 20 / floor).toFixed(1)}× per page`)
    console.log(`RSS (bridge + bench client in one process): before ${mb(rssBefore)}, after ${mb(rss)}, peak ${mb(peak)}; file ${mb(size)}`)
  } finally {
    await stack.close()
  }
}
