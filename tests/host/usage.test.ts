import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { parseRetryAfter, mapUsage } from '../../plugins/kind-claude/usage.ts'
import type { KindUsage } from '../../lib/agent-kinds.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

/** A local stand-in for the provider's usage endpoint; each test sets the next reply. */
function provider() {
  const seen: IncomingMessage[] = []
  let reply: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '{}' }
  const server: Server = createServer((req, res) => {
    seen.push(req)
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
    res.end(reply.body)
  })
  return {
    seen,
    set: (r: typeof reply) => (reply = r),
    listen: () => new Promise<string>((ok) => server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/oauth/usage`))),
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  }
}

const WINDOWS = {
  five_hour: { utilization: 42.5, resets_at: '2030-01-01T05:00:00Z' },
  seven_day: { utilization: 10, resets_at: '2030-01-07T00:00:00Z' },
  seven_day_opus: { utilization: 0, resets_at: null },
  extra_usage: { is_enabled: false },
}

describe('GET /usage', () => {
  const p = provider()
  let url: string
  let clock = Date.parse('2030-01-01T00:00:00Z')
  let home: string
  let b: TestBridge

  const start = async () => {
    b = await startBridge({ home, env: { BRIDGE_USAGE_URL: url }, now: () => clock })
  }
  const usage = async () => {
    const res = await b.request('/usage')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    // Only the claude kind reads usage in this bridge.
    return res.json() as Promise<GetResponses['/usage'] & { claude: KindUsage }>
  }
  const writeCred = () => {
    mkdirSync(join(home, '.claude'), { recursive: true })
    writeFileSync(join(home, '.claude/.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: 'sk-secret-token', subscriptionType: 'max' } }))
  }

  beforeAll(async () => {
    url = await p.listen()
  })
  afterAll(() => p.close())
  afterEach(async () => {
    await b?.close()
    rmSync(home, { recursive: true, force: true })
    p.seen.length = 0
  })

  it('is unavailable with a reason when claude is not configured, without calling the provider', async () => {
    home = mkdtempSync(join(tmpdir(), 'usage-'))
    await start()
    expect(await usage()).toEqual({ fetched_at: '2030-01-01T00:00:00.000Z', claude: { available: false, reason: 'Claude is not configured' } })
    expect(p.seen.length).toBe(0)
  })

  it('passes every window through under the key claude, sends the provider headers, caches for a minute', async () => {
    home = mkdtempSync(join(tmpdir(), 'usage-'))
    writeCred()
    p.set({ status: 200, body: JSON.stringify(WINDOWS) })
    await start()
    const body = await usage()
    expect(body).toEqual({
      fetched_at: '2030-01-01T00:00:00.000Z',
      claude: {
        available: true,
        subscription_type: 'max',
        five_hour: { utilization: 42.5, resets_at: '2030-01-01T05:00:00Z' },
        seven_day: { utilization: 10, resets_at: '2030-01-07T00:00:00Z' },
        seven_day_opus: { utilization: 0 },
      },
    })
    expect(JSON.stringify(body)).not.toContain('sk-secret-token')
    expect(p.seen.length).toBe(1)
    const h = p.seen[0].headers
    expect([h.authorization, h['anthropic-beta'], h['user-agent'], h.accept]).toEqual(['Bearer sk-secret-token', 'oauth-2025-04-20', 'claude-code/2.1.80', 'application/json'])
    clock += 30_000
    await usage()
    expect(p.seen.length).toBe(1)
    clock += 31_000
    await usage()
    expect(p.seen.length).toBe(2)
  })

  it('reports an expired credential on 401 and serves no stale data', async () => {
    home = mkdtempSync(join(tmpdir(), 'usage-'))
    writeCred()
    p.set({ status: 401, body: '{"error":"expired"}' })
    await start()
    expect((await usage()).claude).toEqual({ available: false, reason: 'Claude authentication expired' })
  })

  it('honours 429 Retry-After: no call during the cooldown, the last good answer is served', async () => {
    home = mkdtempSync(join(tmpdir(), 'usage-'))
    writeCred()
    p.set({ status: 429, body: '{}', headers: { 'retry-after': '120' } })
    await start()
    expect((await usage()).claude).toEqual({ available: false, reason: 'Claude usage is rate-limited; retrying after the cooldown' })
    expect(p.seen.length).toBe(1)
    clock += 100_000
    p.set({ status: 200, body: JSON.stringify(WINDOWS) })
    expect((await usage()).claude.available).toBe(false)
    expect(p.seen.length).toBe(1)
    clock += 21_000
    expect((await usage()).claude.available).toBe(true)
    expect(p.seen.length).toBe(2)
    // A later 429 keeps serving the good answer.
    clock += 61_000
    p.set({ status: 429, body: '{}' })
    expect((await usage()).claude.five_hour).toEqual({ utilization: 42.5, resets_at: '2030-01-01T05:00:00Z' })
  })

  it('reports other failures with a reason', async () => {
    home = mkdtempSync(join(tmpdir(), 'usage-'))
    writeCred()
    p.set({ status: 500, body: 'boom' })
    await start()
    expect((await usage()).claude).toEqual({ available: false, reason: 'Claude usage returned HTTP 500' })
    clock += 61_000
    p.set({ status: 200, body: 'not json' })
    expect((await usage()).claude).toEqual({ available: false, reason: 'Claude usage was not valid JSON' })
  })
})

describe('usage helpers', () => {
  it('parses Retry-After seconds and dates, defaults and caps', () => {
    const now = Date.parse('2030-01-01T00:00:00Z')
    expect(parseRetryAfter('30', now)).toBe(30)
    expect(parseRetryAfter(undefined, now)).toBe(60)
    expect(parseRetryAfter('99999', now)).toBe(900)
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:02:00 GMT', now)).toBe(120)
    expect(parseRetryAfter('garbage', now)).toBe(60)
  })
  it('is available only with a five_hour or seven_day window', () => {
    expect(mapUsage({ seven_day_opus: { utilization: 1 } }, 'pro')).toEqual({ available: false, subscription_type: 'pro', seven_day_opus: { utilization: 1 } })
  })
})
