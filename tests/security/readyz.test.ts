import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSim, type Sim } from '../harness/sim.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { until } from '../harness/wait.ts'

/**
 * `/readyz` answers anyone. It pinged every herdr session on each request, so a flood of
 * unauthenticated requests was a flood of herdr calls, and its `reason` showed herdr's socket
 * path to anyone. herdr is reached here through a counting relay in front of the simulator.
 */

let home: string
let sim: Sim
let bridge: TestBridge
let proxyPath: string
let proxy: Server | undefined
const open = new Set<Socket>()
let pings = 0

/** herdr's socket as the bridge sees it: each connection passed to the simulator, pings counted. */
function startProxy(): Promise<void> {
  proxy = createServer((client) => {
    open.add(client)
    const upstream = connect(sim.socketPath('default'))
    open.add(upstream)
    client.once('data', (first) => {
      if (/"method":"ping"/.test(first.toString())) pings++
      upstream.write(first)
      client.pipe(upstream)
    })
    upstream.pipe(client)
    for (const s of [client, upstream]) {
      s.on('error', () => {})
      s.on('close', () => {
        open.delete(s)
        client.destroy()
        upstream.destroy()
      })
    }
  })
  return new Promise((r) => proxy!.listen(proxyPath, () => r()))
}

async function stopProxy(): Promise<void> {
  for (const s of open) s.destroy()
  await new Promise((r) => proxy!.close(r))
  proxy = undefined
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridge-readyz-'))
  proxyPath = join(home, 'counted.sock')
  sim = await startSim({ home, sessions: ['default'] })
  await startProxy()
  bridge = await startBridge({ home, env: { HERDR_SOCKET_PATH: proxyPath } })
}, 60_000)
afterAll(async () => {
  await bridge?.close()
  if (proxy) await stopProxy()
  await sim?.stop()
  rmSync(home, { recursive: true, force: true })
})

const readyz = async (token?: string) => {
  const res = await fetch(`${bridge.url}/readyz`, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  return { status: res.status, body: await res.json() }
}

describe('/readyz', () => {
  test('fifty unauthenticated requests at once cost herdr one ping per second at most', async () => {
    expect(await readyz()).toEqual({ status: 200, body: { ok: true, sessions: ['default'] } })
    const before = pings
    const t0 = performance.now()
    const answers = await Promise.all(Array.from({ length: 50 }, () => readyz()))
    const elapsed = performance.now() - t0
    expect(answers.every((a) => a.status === 200 && a.body.ok === true)).toBe(true)
    expect(pings - before).toBeLessThanOrEqual(1 + Math.floor(elapsed / 1000))
  })

  test('when herdr is gone, only a paired device or the admin is told its socket', async () => {
    await stopProxy()
    try {
      const down = await until(async () => ((await readyz()).status === 503 ? readyz() : null), '/readyz to notice herdr is gone')
      const tail = '; start herdr on this machine (or point the bridge at it) and this clears by itself'
      expect(down).toEqual({ status: 503, body: { ok: false, sessions: [], reason: `no herdr session answers${tail}` } })
      expect((await readyz('not-a-bearer')).body.reason).toBe(`no herdr session answers${tail}`)
      const device = await bridge.pair('phone')
      for (const token of [device.bearer, bridge.adminToken]) {
        expect(await readyz(token)).toEqual({ status: 503, body: { ok: false, sessions: [], reason: `cannot reach herdr at ${proxyPath}: ENOENT${tail}` } })
      }
    } finally {
      await startProxy()
    }
    // The cached answer does not outlive its second.
    await until(async () => (await readyz()).status === 200, '/readyz to see herdr back')
  })
})
