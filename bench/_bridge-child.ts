// Child process for the benchmarks that watch the bridge's own cost (events, transcript): the real
// bridge on its own event loop, so bench clients do not share its CPU or memory (argv: HOME, and
// optionally a JSON object of env overrides). Prints
// `ready {url, wsUrl, token}`; on stdin answers `rss` with `rss <bytes after a full GC> <peak
// bytes>`, resets the peak on `reset-peak`, and closes on `stop`.
import { readFileSync, writeFileSync } from 'node:fs'
import { startBridge } from '../tests/harness/bridge.ts'

const home = process.argv[2]
const env = process.argv[3] ? (JSON.parse(process.argv[3]) as NodeJS.ProcessEnv) : undefined
const b = await startBridge({ home, env })
await b.bridge.ingest!.settled()
process.stdout.write(`ready ${JSON.stringify({ url: b.url, wsUrl: b.wsUrl, token: b.adminToken })}\n`)

/** VmHWM: the most this process has held since start or the last reset. */
const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) * 1024

process.stdin.setEncoding('utf8')
process.stdin.on('data', async (d: string) => {
  for (const cmd of d.split('\n').filter(Boolean)) {
    if (cmd === 'rss') {
      globalThis.gc?.()
      process.stdout.write(`rss ${process.memoryUsage().rss} ${peak()}\n`)
    } else if (cmd === 'reset-peak') {
      // Linux: writing 5 to clear_refs sets the peak back to the current RSS.
      writeFileSync('/proc/self/clear_refs', '5')
      process.stdout.write('ok\n')
    } else if (cmd === 'stop') {
      await b.close()
      process.exit(0)
    }
  }
})
