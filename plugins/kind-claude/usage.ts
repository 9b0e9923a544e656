import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { readCapped } from '../../lib/capped-read.ts'

/** The provider's quota endpoint; tests point BRIDGE_USAGE_URL (or the plugin option) elsewhere. */
export const DEFAULT_USAGE_URL = 'https://api.anthropic.com/api/oauth/usage'
const CACHE_MS = 60_000
const DEFAULT_COOLDOWN_S = 60
const MAX_COOLDOWN_S = 15 * 60
const TIMEOUT_MS = 10_000
const MAX_CREDENTIAL_BYTES = 1024 * 1024
const MAX_REPLY_BYTES = 1024 * 1024

export interface Credential {
  token: string
  subscriptionType: string
}

/** `~/.claude/.credentials.json` → the OAuth access token; undefined when absent or unusable. */
export function readCredential(home: string): Credential | undefined {
  const file = join(home, '.claude', '.credentials.json')
  try {
    if (statSync(file).size > MAX_CREDENTIAL_BYTES) return undefined
    const data = JSON.parse(readFileSync(file, 'utf8'))
    const oauth = data?.claudeAiOauth
    if (typeof oauth?.accessToken !== 'string' || !oauth.accessToken) return undefined
    return { token: oauth.accessToken, subscriptionType: typeof oauth.subscriptionType === 'string' ? oauth.subscriptionType : '' }
  } catch {
    return undefined
  }
}

/** `Retry-After` as seconds or an HTTP date; default 1 min, capped at 15 min. */
export function parseRetryAfter(value: string | undefined, now: number): number {
  if (!value) return DEFAULT_COOLDOWN_S
  let s = /^\s*\d+\s*$/.test(value) ? Number(value) : Math.ceil((Date.parse(value) - now) / 1000)
  if (!Number.isFinite(s) || s <= 0) s = DEFAULT_COOLDOWN_S
  return Math.min(s, MAX_COOLDOWN_S)
}

/** Every window the provider returned (an object with a numeric `utilization`), passed through. */
export function mapUsage(reply: unknown, subscriptionType: string): Record<string, unknown> {
  const out: Record<string, unknown> = { available: false, subscription_type: subscriptionType }
  if (!reply || typeof reply !== 'object') return out
  for (const [k, raw] of Object.entries(reply)) {
    if (!raw || typeof raw !== 'object') continue
    const w = raw as Record<string, unknown>
    if (typeof w.utilization !== 'number') continue
    const win: Record<string, unknown> = { utilization: w.utilization }
    if (typeof w.resets_at === 'string') win.resets_at = w.resets_at
    out[k] = win
  }
  out.available = 'five_hour' in out || 'seven_day' in out
  return out
}

export interface UsageReader {
  read(): Promise<Record<string, unknown>>
}

/**
 * Claude's quota, with these caching rules: a good answer is reused for a
 * minute; 429 starts a cooldown (Retry-After) during which the last good answer is served; an
 * expired credential never serves stale data. The token is sent only to the endpoint.
 */
export function createClaudeUsage(opts: { home: string; url: string; now: () => number }): UsageReader {
  let good: { at: number; value: Record<string, unknown> } | undefined
  let cooldownUntil = 0
  let inflight: Promise<Record<string, unknown>> | undefined

  const fallback = (reason: string) => (good ? good.value : { available: false, reason })

  const fetchOnce = async (): Promise<Record<string, unknown>> => {
    const cred = readCredential(opts.home)
    if (!cred) return { available: false, reason: 'Claude is not configured' }
    const now = opts.now()
    if (now < cooldownUntil) return fallback('Claude usage is rate-limited; retrying after the cooldown')
    if (good && now - good.at < CACHE_MS) return good.value
    let res
    try {
      // undici loads on the first usage read, not at start-up (it is most of a megabyte of code).
      const { request } = await import('undici')
      res = await request(opts.url, {
        method: 'GET',
        headers: {
          authorization: `Bearer ${cred.token}`,
          accept: 'application/json',
          'content-type': 'application/json',
          'user-agent': 'claude-code/2.1.80',
          'anthropic-beta': 'oauth-2025-04-20',
        },
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      })
    } catch {
      return fallback('Claude usage endpoint is unreachable')
    }
    const status = res.statusCode
    if (status === 401 || status === 403) {
      await res.body.dump()
      good = undefined
      return { available: false, reason: 'Claude authentication expired' }
    }
    if (status === 429) {
      const ra = res.headers['retry-after']
      await res.body.dump()
      cooldownUntil = opts.now() + parseRetryAfter(Array.isArray(ra) ? ra[0] : ra, opts.now()) * 1000
      return fallback('Claude usage is rate-limited; retrying after the cooldown')
    }
    if (status < 200 || status >= 300) {
      await res.body.dump()
      return fallback(`Claude usage returned HTTP ${status}`)
    }
    let data: unknown
    try {
      // Capped in bytes and time: the endpoint is outside the daemon (lib/capped-read.ts).
      const reply = await readCapped(res.body, { maxBytes: MAX_REPLY_BYTES, deadlineMs: TIMEOUT_MS })
      if (reply.truncated) throw new Error('too large or too slow')
      data = JSON.parse(reply.text)
    } catch {
      return fallback('Claude usage was not valid JSON')
    }
    const value = mapUsage(data, cred.subscriptionType)
    good = { at: opts.now(), value }
    return value
  }

  return {
    // Concurrent requests share one provider call.
    read: () => (inflight ??= fetchOnce().finally(() => (inflight = undefined))),
  }
}
