// A read error on the herdr CLI's pipes under /attach (EIO): the relay had no 'error' listener
// on the child's stdout or stderr, so the error would end the daemon. It must close the socket
// with 1011 and one line, end the CLI, and leave the bridge serving. (The setup file fails the
// test on any unhandled error in this process.)
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ChildProcess } from 'node:child_process'
import { startStack, type Stack } from '../harness/stack.ts'
import { until } from '../harness/wait.ts'
import { rawUpgrade, takeFrames, closeCodeOf } from '../harness/ws-frames.ts'

/** The herdr CLI children the relay starts, so the test can break their pipes. */
const spawned = vi.hoisted(() => [] as ChildProcess[])
vi.mock('../../lib/exec.ts', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../lib/exec.ts')>()
  return {
    ...mod,
    spawnChild: (...args: Parameters<typeof mod.spawnChild>) => {
      const child = mod.spawnChild(...args)
      spawned.push(child)
      return child
    },
  }
})

let st: Stack
beforeAll(async () => {
  st = await startStack()
}, 60_000)
afterAll(() => st?.close())

/** Opens /attach on a fresh pane; resolves once the 101 is in and the CLI child is running. */
async function attached() {
  const pane = (await st.sim.request('workspace.create', { cwd: st.home })).root_pane.pane_id as string
  const from = spawned.length
  const sock = await rawUpgrade(`${st.bridge.wsUrl}/attach?pane=${encodeURIComponent(pane)}&mode=observe&token=${st.bridge.adminToken}`)
  let buf: Buffer = Buffer.alloc(0)
  let status = 0
  let close: { code: number; reason: string } | undefined
  sock.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d])
    if (!status) {
      const end = buf.indexOf('\r\n\r\n')
      if (end < 0) return
      status = Number(buf.subarray(9, 12).toString())
      buf = buf.subarray(end + 4)
    }
    const { frames, rest } = takeFrames(buf)
    buf = rest
    for (const f of frames) if (f.op === 8) close = { code: closeCodeOf(f.payload), reason: f.payload.subarray(2).toString('utf8') }
  })
  sock.on('error', () => {})
  await until(() => status === 101 && spawned.length > from, 'the upgrade and the CLI child')
  return { sock, child: spawned.at(-1)!, closed: () => close }
}

describe('/attach when the CLI pipe fails', () => {
  for (const stream of ['stdout', 'stderr'] as const) {
    it(`a read error on the CLI's ${stream} closes the socket with 1011 and ends the CLI`, async () => {
      const { sock, child, closed } = await attached()
      const gone = new Promise((r) => child.once('close', r))
      child[stream]!.destroy(Object.assign(new Error('read EIO'), { code: 'EIO', syscall: 'read' }))
      const close = await until(closed, 'the close frame')
      expect(close).toEqual({ code: 1011, reason: 'terminal stream failed: EIO' })
      await gone
      sock.destroy()
      expect((await st.bridge.request('/info')).status).toBe(200)
    })
  }
})
