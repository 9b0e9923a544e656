// Child process for bench/events: the real bridge on its own event loop, so subscriber clients do
// not share its CPU or memory. Prints `ready {url, token}`; answers `rss` on stdin.
import { startBridge } from '../tests/harness/bridge.ts'

const home = process.argv[2]
const b = await startBridge({ home })
await b.bridge.ingest!.settled()
process.stdout.write(`ready ${JSON.stringify({ url: b.url, token: b.adminToken })}\n`)
process.stdin.setEncoding('utf8')
process.stdin.on('data', async (d: string) => {
  for (const cmd of d.split('\n').filter(Boolean)) {
    if (cmd === 'rss') {
      globalThis.gc?.()
      process.stdout.write(`rss ${process.memoryUsage().rss}\n`)
    } else if (cmd === 'stop') {
      await b.close()
      process.exit(0)
    }
  }
})
