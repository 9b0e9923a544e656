import { afterEach, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { io } from '../../lib/atomic-file.ts'
import type { PostResponses } from '../../plugins/web/app/src/lib/api-types.ts'

const realWrite = io.write
let b: TestBridge | undefined
afterEach(async () => {
  io.write = realWrite
  await b?.close()
  b = undefined
})

/** Writes half the data, then fails as the kernel would. */
function failingDisk(code: 'ENOSPC' | 'EROFS') {
  io.write = (path, data, mode) => {
    realWrite(path, typeof data === 'string' ? data.slice(0, data.length >> 1) : data.subarray(0, data.length >> 1), mode)
    throw Object.assign(new Error(`${code}: simulated`), { code })
  }
}

describe('device registry on a failing disk', () => {
  for (const code of ['ENOSPC', 'EROFS'] as const) {
    it(`${code}: pairing is refused clearly and the old file stays intact`, async () => {
      b = await startBridge()
      const kept = await b.pair('kept')
      const before = readFileSync(join(b.dataDir, 'devices.json'), 'utf8')
      const { code: pairCode } = (await (await b.request('/admin/pairing', { method: 'POST' })).json()) as PostResponses['/admin/pairing']
      failingDisk(code)
      const res = await b.request('/pair', { method: 'POST', token: null, json: { code: pairCode, device_name: 'lost' } })
      expect(res.status).toBe(500)
      expect(await res.text()).toBe(`cannot save the device registry: ${code}; nothing was changed`)
      expect(readFileSync(join(b.dataDir, 'devices.json'), 'utf8')).toBe(before)
      expect(readdirSync(b.dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([])
      // Memory agrees with disk: no bearer was handed out for the unsaved device.
      expect(b.bridge.ctx.devices.list().map((d) => d.name)).toEqual(['kept'])
      // Revocation on a failing disk fails closed: the bearer is refused at once, the write is
      // retried (tests/security/revocation-journal.test.ts).
      const rev = await b.request('/admin/devices/revoke', { method: 'POST', json: { id: kept.id } })
      expect(rev.status).toBe(200)
      expect((await b.request('/info', { token: kept.bearer })).status).toBe(401)
      io.write = realWrite
    })
  }
})
