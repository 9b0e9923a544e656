import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import type { Socket } from 'node:net'
import type { Peer } from 'crossws'
import userConfig from '../../bridge.config.ts'
import { defineBridgePlugin, defineBridgeWebSocket } from '../../core/plugin.ts'
import { createDeviceSockets } from '../../core/device-sockets.ts'
import { startStack, type Stack } from '../harness/stack.ts'
import { rawUpgrade, takeFrames, closeCodeOf } from '../harness/ws-frames.ts'

/**
 * Revocation is immediate: a WebSocket upgrade that authenticated before its device was revoked,
 * and that was still awaiting its route's `accept` (a pane lookup) when the revocation ran, must
 * not open. Before the fix such a socket registered after the revocation and stayed open.
 */

/** A WebSocket route whose `accept` waits until the test releases it. */
let reachedAccept: () => void = () => {}
let release: () => void = () => {}
const gate = defineBridgePlugin({
  name: 'test-gate',
  websockets: [
    defineBridgeWebSocket({
      path: '/test-gate',
      auth: 'device',
      queryToken: true,
      async accept() {
        reachedAccept()
        await new Promise<void>((r) => (release = r))
        return {}
      },
      open(peer) {
        peer.send('opened')
      },
    }),
  ],
})

let st: Stack
beforeAll(async () => {
  st = await startStack({ bridge: { user: { ...userConfig, plugins: [...userConfig.plugins, gate] } } })
})
afterAll(() => st?.close())

/** A client ping (masked, no payload): an open socket answers it with a pong. */
const PING = Buffer.from([0x89, 0x80, 0, 0, 0, 0])

/**
 * The status line of the upgrade answer, then what became of the socket: closed (a close frame
 * or the connection gone), or still open, shown by its pong to a ping sent after the 101; data
 * frames that came before are counted.
 */
async function answerOf(sock: Socket): Promise<{ status: number; closeCode?: number; dataFrames: number; alive: boolean }> {
  let buf: Buffer = Buffer.alloc(0)
  let status = 0
  let closeCode: number | undefined
  let dataFrames = 0
  let alive = false
  await new Promise<void>((resolve) => {
    const done = () => resolve()
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d])
      if (!status) {
        const end = buf.indexOf('\r\n\r\n')
        if (end < 0) return
        status = Number(/^HTTP\/1\.1 (\d{3})/.exec(buf.subarray(0, end).toString('latin1'))?.[1] ?? 0)
        buf = buf.subarray(end + 4)
        if (status !== 101) return done()
        sock.write(PING)
      }
      const { frames, rest } = takeFrames(buf)
      buf = rest
      for (const f of frames) {
        if (f.op === 8) {
          closeCode = closeCodeOf(f.payload)
          return done()
        }
        if (f.op === 10) {
          alive = true
          return done()
        }
        if (f.op !== 9) dataFrames++
      }
    })
    sock.once('close', done)
  })
  sock.destroy()
  return { status, closeCode, dataFrames, alive }
}

async function revoke(id: string): Promise<void> {
  const res = await st.bridge.request('/admin/devices/revoke', { method: 'POST', json: { id } })
  expect(res.status).toBe(200)
}

describe('revocation during a WebSocket upgrade', () => {
  test('an upgrade awaiting accept when its device is revoked is refused with 401', async () => {
    const dev = await st.bridge.pair('racer')
    const reached = new Promise<void>((r) => (reachedAccept = r))
    const sock = await rawUpgrade(`${st.bridge.wsUrl}/test-gate?token=${dev.bearer}`)
    await reached
    await revoke(dev.id)
    release()
    expect(await answerOf(sock)).toEqual({ status: 401, closeCode: undefined, dataFrames: 0, alive: false })
  })

  test('an upgrade of another device is untouched by the revocation', async () => {
    const victim = await st.bridge.pair('victim')
    const other = await st.bridge.pair('other')
    const reached = new Promise<void>((r) => (reachedAccept = r))
    const sock = await rawUpgrade(`${st.bridge.wsUrl}/test-gate?token=${other.bearer}`)
    await reached
    await revoke(victim.id)
    release()
    expect(await answerOf(sock)).toEqual({ status: 101, closeCode: undefined, dataFrames: 1, alive: true })
  })

  for (const mode of ['control', 'observe']) {
    test(`/attach (${mode}): revoked while the pane lookup is pending → 401, no terminal`, async () => {
      const pane = (await st.sim.request('workspace.create', { cwd: st.home })).root_pane.pane_id as string
      const dev = await st.bridge.pair(`attach-${mode}`)
      const pid = st.sim.pid()!
      // herdr stops answering, so the upgrade waits in its pane lookup after authenticating.
      process.kill(pid, 'SIGSTOP')
      let sock: Socket
      try {
        sock = await rawUpgrade(`${st.bridge.wsUrl}/attach?pane=${encodeURIComponent(pane)}&mode=${mode}&token=${dev.bearer}`)
        await vi.waitFor(() => expect(st.bridge.bridge.ctx.devices.get(dev.id)?.last_seen).toBeTypeOf('number'), { timeout: 10_000 })
        await revoke(dev.id)
      } finally {
        process.kill(pid, 'SIGCONT')
      }
      expect(await answerOf(sock!)).toEqual({ status: 401, closeCode: undefined, dataFrames: 0, alive: false })
    })
  }
})

describe('device socket registry', () => {
  test('a socket opening after its device is gone is not admitted', () => {
    const paired = new Set(['a'])
    const reg = createDeviceSockets((id) => paired.has(id))
    // The registry only ever calls close() on a peer.
    const peer = { close: vi.fn() } as unknown as Peer
    paired.delete('a')
    expect(reg.admit('a', peer)).toBe(false)
  })

  test('closeDevice closes open sockets and marks upgrades in flight', () => {
    const reg = createDeviceSockets(() => true)
    const peer = { close: vi.fn() } as unknown as Peer
    expect(reg.admit('a', peer)).toBe(true)
    const t = reg.beginUpgrade('a')
    const other = reg.beginUpgrade('b')
    reg.closeDevice('a')
    expect(peer.close).toHaveBeenCalledWith(1008, 'device revoked')
    expect(t.revoked).toBe(true)
    expect(other.revoked).toBe(false)
    t.done()
    other.done()
  })
})
