import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBridge, type TestBridge } from '../harness/bridge.ts'

/** With no herdr running, host operations that need it answer 502 in one line; the rest still work. */
describe('host operations without herdr', () => {
  let b: TestBridge
  let bin: string
  beforeAll(async () => {
    // `claude` counts as installed, so /agent/start gets as far as herdr.
    bin = mkdtempSync(join(tmpdir(), 'no-herdr-bin-'))
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\n')
    chmodSync(join(bin, 'claude'), 0o755)
    b = await startBridge({ env: { PATH: `${bin}:${process.env.PATH}` } })
  })
  afterAll(async () => {
    await b.close()
    rmSync(bin, { recursive: true, force: true })
  })

  const call = async (path: string, json?: unknown) => {
    const res = await b.request(path, json === undefined ? {} : { method: 'POST', json })
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() }
  }

  it('answers 502 herdr: unreachable for pane reads and controls', async () => {
    for (const [path, json] of [
      ['/suggestions?pane=w1:p1', undefined],
      ['/commands?pane=w1:p1', undefined],
      ['/pane/new', { split_from: 'w1:p1' }],
      ['/pane/close', { pane_id: 'w1:p1' }],
      ['/agent/stop', { pane_id: 'w1:p1' }],
      ['/agent/start', { kind: 'claude', split_from: 'w1:p1' }],
    ] as const) {
      const r = await call(path, json)
      expect([path, r.status, r.type.split(';')[0]]).toEqual([path, 502, 'text/plain'])
      expect(r.body).toMatch(/^herdr: unreachable: /)
      expect(r.body).not.toContain('\n')
    }
  })

  it('still lists available kinds, browses home and scans ports', async () => {
    const kinds = await call('/agents/available')
    expect(kinds.status).toBe(200)
    expect(JSON.parse(kinds.body).discovery).toBe('herdr agent kinds + PATH lookup')
    expect((await call('/browse')).status).toBe(200)
    expect((await call('/ports')).status).toBe(200)
  })
})
