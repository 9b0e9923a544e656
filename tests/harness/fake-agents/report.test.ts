// The fake agents' reports to herdr: a report whose connection is lost is sent again, in order,
// so a dropped "blocked" cannot leave a pane working forever under load.
import net from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { flush, send } from './report.ts'

let dir: string
let server: net.Server
const received: string[] = []
let dropped = 0

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fake-report-'))
  process.env.HERDR_SOCKET_PATH = join(dir, 'herdr.sock')
  process.env.HERDR_PANE_ID = 'w1:p1'
  server = net.createServer((sock) => {
    sock.once('data', (d) => {
      const req = JSON.parse(d.toString('utf8').split('\n')[0])
      // herdr busy: the first connection of each "blocked" report goes unanswered.
      if (req.params.state === 'blocked' && dropped++ % 2 === 0) return sock.destroy()
      received.push(req.params.state)
      sock.end(`${JSON.stringify({ id: req.id, result: { type: 'ok' } })}\n`)
    })
  })
  await new Promise<void>((res) => server.listen(process.env.HERDR_SOCKET_PATH, res))
})

afterAll(async () => {
  await new Promise((res) => server.close(res))
  rmSync(dir, { recursive: true, force: true })
})

it('sends a report again when its connection is lost, keeping the order', async () => {
  const answers = ['working', 'blocked', 'working'].map((state) => send('pane.report_agent', { source: 'herdr:claude', agent: 'claude', state }))
  await flush()
  expect(received).toEqual(['working', 'blocked', 'working'])
  expect(dropped).toBe(2)
  expect(await Promise.all(answers)).toEqual(Array(3).fill(expect.objectContaining({ result: { type: 'ok' } })))
})

it('gives up at once outside herdr (no socket)', async () => {
  process.env.HERDR_SOCKET_PATH = join(dir, 'absent.sock')
  const t = Date.now()
  expect(await send('pane.report_agent', { source: 'herdr:claude', agent: 'claude', state: 'idle' })).toBeUndefined()
  expect(Date.now() - t).toBeLessThan(1000)
})
