import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { rmSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { sandbox, startDaemon, type Daemon } from './helpers.ts'

// A new node process running the bundled CLI: seconds on a loaded 2-core machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 })

/**
 * Start-up waits on no herdr round trip: against a herdr socket that accepts and never answers,
 * `bridge serve` listens and answers /healthz, while /readyz (the readiness probe) says herdr is
 * not there yet.
 */

const box = sandbox('bridge-healthz-')
const sockPath = join(box.root, 'silent.sock')
const open = new Set<Socket>()
let asked = 0
let silent: Server
let daemon: Daemon

beforeAll(async () => {
  silent = createServer((s) => {
    open.add(s)
    s.on('data', () => asked++)
    s.on('error', () => {})
    s.on('close', () => open.delete(s))
  })
  await new Promise<void>((r) => silent.listen(sockPath, () => r()))
  daemon = await startDaemon({ ...box.env, HERDR_SOCKET_PATH: sockPath }, ['--dir', box.dataDir])
})

afterAll(async () => {
  await daemon?.stop()
  for (const s of open) s.destroy()
  await new Promise((r) => silent?.close(r))
  rmSync(box.root, { recursive: true, force: true })
})

describe('start-up before herdr answers', () => {
  it('/healthz answers 200 while herdr has answered nothing', async () => {
    const h = await fetch(`${daemon.url}/healthz`)
    expect(h.status).toBe(200)
    expect(await h.json()).toEqual({ ok: true })
    // The bridge did ask herdr (a socket that never answers is not one it skipped).
    await vi.waitFor(() => expect(asked).toBeGreaterThan(0), { timeout: 20_000 })
  })

  it('/readyz says not ready', async () => {
    const r = await fetch(`${daemon.url}/readyz`)
    expect(r.status).toBe(503)
    expect(await r.json()).toMatchObject({ ok: false, sessions: [] })
  })
})
