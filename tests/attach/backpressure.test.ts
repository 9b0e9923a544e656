import { afterAll, beforeAll, expect, it } from 'vitest'
import { connect } from 'node:net'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { startStack, type Stack } from '../harness/stack.ts'
import attach from '../../plugins/attach/index.ts'

/**
 * A client that stops reading: the bridge stops reading the CLI instead of buffering without
 * bound, and drops the client once it stays stuck (here after 1.5 s; 30 s by default).
 */

let st: Stack
beforeAll(async () => {
  st = await startStack({ bridge: { user: { plugins: [[attach, { high_water_bytes: 256 * 1024, stuck_ms: 1500 }]] } } })
})
afterAll(() => st?.close())

function cliChildren(): number {
  let n = 0
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')
      if (cmd.includes('terminal') && cmd.includes('session')) n++
    } catch {
      // exited meanwhile
    }
  }
  return n
}

it('pauses the CLI for a client that does not read, then drops the client with 1013', async () => {
  const pane = (await st.sim.request('workspace.create', { cwd: st.home })).root_pane.pane_id
  const port = Number(new URL(st.bridge.url).port)
  const sock = connect(port, '127.0.0.1')
  await new Promise<void>((r) => sock.once('connect', () => r()))
  sock.write(
    `GET /attach?pane=${encodeURIComponent(pane)}&token=${st.bridge.adminToken}&mode=observe HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  )
  // Read the 101, then stop reading altogether.
  const head = await new Promise<string>((resolve) => sock.once('data', (d) => resolve(d.toString('latin1'))))
  expect(head.startsWith('HTTP/1.1 101')).toBe(true)
  sock.pause()
  const t0 = Date.now()
  await st.sim.request('pane.send_text', { pane_id: pane, text: 'yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789 | head -c 60000000\r' })
  // Stuck past the limit: the bridge ends the CLI although the client never read a byte more.
  const deadline = Date.now() + 60_000
  while (cliChildren() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  expect(cliChildren()).toBe(0)
  expect(Date.now() - t0).toBeGreaterThan(1500)
  // Once the client reads again, the tail of the stream ends in a close frame with 1013.
  const chunks: Buffer[] = []
  sock.on('data', (d) => chunks.push(d))
  sock.resume()
  await new Promise<void>((r) => sock.once('close', () => r()))
  const all = Buffer.concat(chunks)
  const closeAt = all.lastIndexOf(Buffer.from([0x88]))
  expect(closeAt).toBeGreaterThan(-1)
  const len = all[closeAt + 1]
  const payload = all.subarray(closeAt + 2, closeAt + 2 + len)
  expect(payload.readUInt16BE(0)).toBe(1013)
  expect(payload.subarray(2).toString('utf8')).toBe('client is not reading the terminal stream')
  await st.sim.request('pane.send_keys', { pane_id: pane, keys: ['ctrl+c'] })
}, 120_000)
