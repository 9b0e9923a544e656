import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createConsola } from 'consola'
import { request } from 'undici'
import { REPO_ROOT, startBridge, type TestBridge } from '../harness/bridge.ts'
import { startServe, type Served } from '../kinds/serve-process.ts'
import { browserKeys } from '../notify/webpush-crypto.ts'
import { rssOf, startHostile, type HostileServer } from './hostile-answers.ts'
import { readCapped } from '../../lib/capped-read.ts'
import { postWithRetry } from '../../lib/notify/http.ts'
import { hasControl } from '../../lib/strings.ts'
import pairing from '../../plugins/pairing/index.ts'
import push from '../../plugins/push/index.ts'
import notifyWebhook from '../../plugins/notify-webhook/index.ts'

/**
 * Every answer body the daemon reads from outside is capped in bytes and time
 * (lib/capped-read.ts): a push service, webhook or ntfy server answering with a gigabyte, or
 * trickling bytes forever, costs a bounded amount of memory and one connection for the try's
 * deadline. The daemon's figure is measured in a process of its own (VmHWM, its peak RSS).
 */
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 })

/** The giant answer's size; lowered (BRIDGE_TEST_GIANT_MB) only to watch the old code fail without exhausting the machine. */
const GIANT = Number(process.env.BRIDGE_TEST_GIANT_MB ?? 1024) * 1024 * 1024
/** How much the daemon's peak RSS may pass its resident size before the alert. */
const BOUND = 64 * 1024 * 1024

const servers: HostileServer[] = []
const hostile = async (...args: Parameters<typeof startHostile>) => {
  const s = await startHostile(...args)
  servers.push(s)
  return s
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

describe('readCapped', () => {
  it('keeps the cap of a gigabyte answer and drops the connection (undici request and fetch)', async () => {
    const s = await hostile('giant', { status: 200, totalBytes: GIANT })
    const a = await request(s.url)
    const r = await readCapped(a.body, { maxBytes: 1024, deadlineMs: 5000 })
    expect(r).toMatchObject({ truncated: true, stopped: 'cap' })
    expect(r.bytes.length).toBe(1024)
    const f = await fetch(s.url)
    const r2 = await readCapped(f.body, { maxBytes: 100, deadlineMs: 5000 })
    expect(r2.text).toBe('A'.repeat(100))
    await s.settled(2)
    // What was written before the close is what the socket buffers held, not the gigabyte.
    expect(s.written()).toBeLessThan(32 * 1024 * 1024)
  })

  it('gives up on a never-ending trickle at the deadline, with what came so far', async () => {
    const s = await hostile('trickle', { trickleMs: 20 })
    const a = await request(s.url)
    const t0 = Date.now()
    const r = await readCapped(a.body, { maxBytes: 1024, deadlineMs: 400 })
    const took = Date.now() - t0
    expect(r.stopped).toBe('deadline')
    expect(took).toBeGreaterThanOrEqual(390)
    expect(r.text.startsWith('\u001b]0;owned\u0007')).toBe(true)
    await s.settled(1)
  })

  it('reads a short body whole', async () => {
    const s = await hostile('giant', { status: 200, totalBytes: 10 })
    const r = await readCapped((await request(s.url)).body, { maxBytes: 1024, deadlineMs: 5000 })
    expect(r).toEqual({ bytes: Buffer.from('A'.repeat(10)), text: 'A'.repeat(10), truncated: false })
  })
})

describe('postWithRetry (Web Push, ntfy, webhooks)', () => {
  it('a trickling target costs each try its deadline; the text kept is escaped for terminals', async () => {
    const s = await hostile('trickle', { trickleMs: 20 })
    const t0 = Date.now()
    const r = await postWithRetry(s.url, { headers: {}, body: 'x', timeoutMs: 300, backoffMs: [10] })
    expect(Date.now() - t0).toBeLessThan(3000)
    expect(r.ok).toBe(false)
    expect(r.tries).toBe(2)
    if (r.ok) return
    expect(r.error.startsWith('HTTP 500: \\u001b]0;owned\\u0007\\u001b[31m')).toBe(true)
    expect(hasControl(r.error)).toBe(false)
  })

  it('the webhook failure reaches the log escaped: no ESC, OSC or BEL of the target arrives raw', async () => {
    const s = await hostile('trickle', { trickleMs: 20 })
    const lines: string[] = []
    const b: TestBridge = await startBridge({
      env: { BRIDGE_WEBHOOK_URL: s.url + '/hook' },
      log: createConsola({ level: 3, reporters: [{ log: (o) => void lines.push(o.args.join(' ')) }] }),
      user: { plugins: [pairing, push, [notifyWebhook, { timeoutMs: 300, backoffMs: [10] }]] },
    })
    try {
      const r = await b.request('/admin/notify/test', { method: 'POST', json: { channel: 'webhook' } })
      expect(r.status).toBe(200)
      const body = (await r.json()) as { channels: { channel: string; note?: string }[] }
      expect(body.channels[0].note).toMatch(/^HTTP 500: \\u001b\]0;owned\\u0007/)
      const failure = lines.find((l) => l.includes('webhook: #1'))
      expect(failure).toContain('HTTP 500: \\u001b]0;owned\\u0007\\u001b[31m')
      expect(lines.filter(hasControl)).toEqual([])
    } finally {
      await b.close()
    }
  })
})

describe('the daemon under a gigabyte answer from every push target', () => {
  let dir: string | undefined
  let daemon: Served | undefined
  afterAll(async () => {
    await daemon?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it(`Web Push, ntfy and a webhook answering ${GIANT >> 20} MiB each: peak RSS stays within ${BOUND >> 20} MiB of the start`, async () => {
    const s = await hostile('giant', { status: 500, totalBytes: GIANT })
    dir = mkdtempSync(join(tmpdir(), 'bridge-outbound-'))
    const env = {
      ...process.env,
      BRIDGE_DIR: join(dir, 'data'),
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, '.config'),
      BRIDGE_CONFIG: '',
      BRIDGE_WEBPUSH_INSECURE: '1',
      BRIDGE_WEBHOOK_URL: `${s.url}/hook`,
      BRIDGE_NTFY_URL: `${s.url}/ntfy`,
    }
    daemon = await startServe({ bin: join(REPO_ROOT, 'cli/bin.mjs'), env, cwd: dir })
    const pid = daemon.pid
    const admin = { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' }
    const { code } = (await (await fetch(daemon.base + '/admin/pairing', { method: 'POST', headers: admin })).json()) as { code: string }
    const device = (await (
      await fetch(daemon.base + '/pair', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, device_name: 'giant' }) })
    ).json()) as { bearer: string }
    const asDevice = { authorization: `Bearer ${device.bearer}`, 'content-type': 'application/json' }
    const k = browserKeys()
    const sub = await fetch(daemon.base + '/webpush/subscribe', {
      method: 'POST',
      headers: asDevice,
      body: JSON.stringify({ endpoint: `${s.url}/push`, keys: { p256dh: k.p256dh, auth: k.auth } }),
    })
    expect(sub.status).toBe(200)
    const before = rssOf(pid)
    expect((await fetch(daemon.base + '/testpush', { method: 'POST', headers: asDevice })).status).toBe(200)
    // Three tries per target (500 is retried), nine requests in all, every connection closed.
    await s.settled(9, 90_000)
    expect(s.requests.filter((r) => r.path === '/push')).toHaveLength(3)
    expect(s.requests.filter((r) => r.path === '/ntfy')).toHaveLength(3)
    expect(s.requests.filter((r) => r.path === '/hook')).toHaveLength(3)
    const after = rssOf(pid)
    console.log(
      `outbound giant answers: RSS before ${mb(before.rss)}, peak ${mb(after.peak)} (was ${mb(before.peak)}), after ${mb(after.rss)}; ${mb(s.written())} written by the targets`,
    )
    expect(after.peak - before.rss).toBeLessThan(BOUND)
  })
})

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`
