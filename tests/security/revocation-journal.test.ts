import { afterEach, describe, expect, it, vi } from 'vitest'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createConsola } from 'consola'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { io } from '../../lib/atomic-file.ts'
import { journalIo } from '../../storage/revocations.ts'

/**
 * A revocation fails closed: the bearer is refused at once whatever the disk does; the revoke
 * is journaled before the registry is rewritten, retried until the registry is saved, reported
 * in the log and by `GET /admin/status` (`bridge status`), and still enforced after a restart.
 */
const realWrite = io.write
const realAppend = journalIo.append
const homes: string[] = []
let b: TestBridge | undefined
afterEach(async () => {
  io.write = realWrite
  journalIo.append = realAppend
  await b?.bridge.close()
  b = undefined
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true })
})

/** The registry's writes fail as on a full disk; other files (the journal) still take a line. */
function registryDiskFull() {
  io.write = (path, data, mode) => {
    if (path.includes('devices.json')) throw Object.assign(new Error('ENOSPC: simulated'), { code: 'ENOSPC' })
    realWrite(path, data, mode)
  }
}

async function bridgeWithLog(opts: { home?: string } = {}) {
  const lines: string[] = []
  const log = createConsola({ level: 3, reporters: [{ log: (o) => void lines.push(`${o.type} ${o.args.join(' ')}`) }] })
  const started = await startBridge({ ...opts, log })
  if (!opts.home) homes.push(started.home)
  return { b: started, lines }
}

const registry = (bridge: TestBridge) => (JSON.parse(readFileSync(join(bridge.dataDir, 'devices.json'), 'utf8')) as { id: string }[]).map((d) => d.id)

describe('revocation on a failing disk', () => {
  it('refuses the bearer at once, reports it, and retries until the registry is saved', async () => {
    const started = await bridgeWithLog()
    b = started.b
    const phone = await b.pair('phone')
    registryDiskFull()
    const rev = await b.request('/admin/devices/revoke', { method: 'POST', json: { id: phone.id } })
    expect(rev.status).toBe(200)
    expect(await rev.json()).toEqual({ revoked: true, id: phone.id, name: 'phone' })
    expect((await b.request('/info', { token: phone.bearer })).status).toBe(401)
    const problem = `device ${phone.id} is revoked and refused, but the device registry could not be saved (ENOSPC); the revocation journal keeps it refused across a restart; retrying`
    expect(started.lines).toContain(`error ${problem}`)
    const status = (await (await b.request('/admin/status')).json()) as { devices_unsaved?: string; devices: number }
    expect(status).toMatchObject({ devices: 0, devices_unsaved: problem })
    // Still on disk as paired: only the journal says otherwise, until the retry lands.
    expect(registry(b)).toContain(phone.id)
    expect(existsSync(join(b.dataDir, 'revoked.jsonl'))).toBe(true)
    io.write = realWrite
    await vi.waitFor(() => expect(registry(b!)).not.toContain(phone.id), { timeout: 10_000, interval: 100 })
    await vi.waitFor(() => expect(started.lines).toContain('info device registry saved: every revocation is on disk'), { timeout: 5000 })
    expect(existsSync(join(b.dataDir, 'revoked.jsonl'))).toBe(false)
    expect(((await (await b.request('/admin/status')).json()) as { devices_unsaved?: string }).devices_unsaved).toBeUndefined()
    expect((await b.request('/info', { token: phone.bearer })).status).toBe(401)
  })

  it('a restart before the registry is saved keeps the device refused (the journal), and saves the registry', async () => {
    const first = await bridgeWithLog()
    b = first.b
    const home = b.home
    const phone = await b.pair('phone')
    const kept = await b.pair('kept')
    registryDiskFull()
    expect((await b.request('/admin/devices/revoke', { method: 'POST', json: { id: phone.id } })).status).toBe(200)
    await b.bridge.close()
    b = undefined
    expect(registry({ dataDir: join(home, '.herdr-bridge') } as TestBridge)).toContain(phone.id)
    io.write = realWrite
    const second = await bridgeWithLog({ home })
    b = second.b
    expect((await b.request('/info', { token: phone.bearer })).status).toBe(401)
    expect((await b.request('/info', { token: kept.bearer })).status).toBe(200)
    // Started from the journal, the registry is rewritten without the device and the journal goes.
    await vi.waitFor(() => expect(registry(b!)).toEqual([kept.id]), { timeout: 10_000, interval: 100 })
    await vi.waitFor(() => expect(existsSync(join(b!.dataDir, 'revoked.jsonl'))).toBe(false), { timeout: 5000, interval: 100 })
  })

  it('with neither the registry nor the journal writable, the device is still refused and the log says a restart would let it back', async () => {
    const started = await bridgeWithLog()
    b = started.b
    const phone = await b.pair('phone')
    registryDiskFull()
    journalIo.append = () => {
      throw Object.assign(new Error('ENOSPC: simulated'), { code: 'ENOSPC' })
    }
    expect((await b.request('/admin/devices/revoke', { method: 'POST', json: { id: phone.id } })).status).toBe(200)
    expect((await b.request('/info', { token: phone.bearer })).status).toBe(401)
    expect(started.lines).toContain(
      `error device ${phone.id} is revoked and refused, but the device registry could not be saved (ENOSPC), nor the revocation journal (ENOSPC): a restart before a retry succeeds would let it back in; retrying`,
    )
  })
})
