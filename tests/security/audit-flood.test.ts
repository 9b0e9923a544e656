import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { AUDIT_BUFFER, createAuditLog, REFUSAL_CALLERS } from '../../storage/audit-log.ts'

/**
 * Refusals cannot fill memory through the audit log nor push a device's actions out of it:
 * they are counted per route, status and caller and written once a minute as one line each, to
 * a file of their own; actions wait in a bounded buffer.
 */
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))

let b: TestBridge | undefined
const dirs: string[] = []
afterEach(async () => {
  await b?.close()
  b = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('audit log under refusals', () => {
  it("a device's /send stays in audit.log after more refused pairing attempts than the log's whole size holds as lines", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-audit-'))
    dirs.push(dir)
    const errors: unknown[] = []
    const audit = createAuditLog(dir, (e) => errors.push(e))
    audit.record({ ts: 1, device: 'd1', route: 'POST /send', pane: 'w:1', text_length: 5, status: 200 })
    // One refused pairing as a separate line would be about this long; the log keeps 4 × 5 MiB.
    const one = JSON.stringify({ ts: Date.now(), device: '-', route: 'POST /pair', status: 403 }).length + 1
    const flood = Math.ceil((4 * 5 * 1024 * 1024) / one) + 1000
    for (let i = 0; i < flood; i++) {
      audit.record({ ts: i, device: '-', route: 'POST /pair', status: i % 10 === 0 ? 403 : 429, from: `198.51.100.${i % 7}` })
      // The buffer never holds more than its bound, however fast lines arrive.
      if (i % 5000 === 0) expect(audit.backlog()).toBeLessThanOrEqual(AUDIT_BUFFER)
    }
    await audit.flush()
    expect(errors).toEqual([])
    const kept = lines(audit.path)
    expect(kept).toEqual([{ ts: 1, device: 'd1', route: 'POST /send', pane: 'w:1', text_length: 5, status: 200 }])
    expect(readdirSync(dir).filter((f) => f.startsWith('audit.log.'))).toEqual([])
    const refused = lines(audit.refusedPath)
    // 7 addresses × 2 statuses, each one line with its count.
    expect(refused).toHaveLength(14)
    expect(refused.reduce((n, r) => n + r.count, 0)).toBe(flood)
    const r7 = refused.find((r) => r.from === '198.51.100.0' && r.status === 403)
    expect(r7.summary).toMatch(new RegExp(`^${r7.count} refused POST /pair \\(403\\) from 198\\.51\\.100\\.0 in the last \\d+ s$`))
  })

  it('counts at most 100 callers apart in a window; the rest share one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-audit-'))
    dirs.push(dir)
    const audit = createAuditLog(dir, () => {})
    for (let i = 0; i < 5000; i++) audit.record({ ts: i, device: '-', route: 'POST /pair', status: 403, from: `2001:db8::${i.toString(16)}` })
    await audit.flush()
    const refused = lines(audit.refusedPath)
    expect(refused).toHaveLength(REFUSAL_CALLERS + 1)
    expect(refused.at(-1)).toMatchObject({ from: 'other callers', count: 5000 - REFUSAL_CALLERS })
    expect(statSync(audit.refusedPath).size).toBeLessThan(64 * 1024)
  })

  it('a full buffer drops new lines and says how many, once there is room', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-audit-'))
    dirs.push(dir)
    const audit = createAuditLog(dir, () => {})
    // Synchronously, nothing is written yet: the buffer takes its bound and counts the rest.
    for (let i = 0; i < AUDIT_BUFFER + 250; i++) audit.record({ ts: i, device: 'd1', route: 'POST /send', status: 200 })
    expect(audit.backlog()).toBeLessThanOrEqual(AUDIT_BUFFER)
    await audit.flush()
    const kept = lines(audit.path)
    const written = kept.filter((l) => l.route === 'POST /send').length
    // The first line leaves the buffer at once (the writer starts with it), so one more fits.
    expect(written).toBe(AUDIT_BUFFER + 1)
    expect(kept.at(-1)).toMatchObject({ route: 'audit', dropped: 249 })
  })

  it('over HTTP: refused pairings, 429s and 401s on write routes are counted lines; actions stay line by line', async () => {
    b = await startBridge()
    const d = await b.pair('phone')
    const send = await b.request('/send', { method: 'POST', token: d.bearer, json: { pane: 'w1:p1', text: 'ls\n' } })
    const sendStatus = send.status
    const bad = (token: string | null) => b!.request('/pair', { method: 'POST', token, json: { code: 'deadbeef', device_name: 'x' } })
    const statuses: number[] = []
    for (let i = 0; i < 40; i++) statuses.push((await bad(null)).status)
    expect(statuses.filter((s) => s === 403)).toHaveLength(10)
    expect(statuses.filter((s) => s === 429)).toHaveLength(30)
    for (let i = 0; i < 3; i++) expect((await b.request('/send', { method: 'POST', token: 'f'.repeat(64), json: { pane: 'w1:p1', text: 'x' } })).status).toBe(401)
    // A GET refused is not a write: not audited.
    expect((await b.request('/info', { token: null })).status).toBe(401)
    const dataDir = b.dataDir
    dirs.push(b.home)
    // The bridge closes (writing the refusals counted so far) but its home stays for reading.
    await b.bridge.close()
    b = undefined
    const actions = lines(join(dataDir, 'audit.log')).map((l) => `${l.device === '-' ? '-' : l.device === 'admin' ? 'admin' : 'device'} ${l.route} ${l.status}`)
    expect(actions).toEqual(['admin POST /admin/pairing 200', '- POST /pair 200', `device POST /send ${sendStatus}`])
    const refused = lines(join(dataDir, 'audit-refused.log')).map((l) => l.summary.replace(/ in the last .*$/, ''))
    expect(refused.sort()).toEqual(['10 refused POST /pair (403) from 127.0.0.1', '3 refused POST /send (401) from 127.0.0.1', '30 refused POST /pair (429) from 127.0.0.1'])
  })
})
