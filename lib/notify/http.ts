import type { Dispatcher } from 'undici'
import { readCapped } from '../capped-read.ts'
import { termSafe } from '../strings.ts'
import { errField } from '../error-fields.ts'

/**
 * One POST with a per-try timeout and bounded retries, for the HTTP channels (Web Push, ntfy,
 * webhooks). Network errors and the statuses in `retryOn` are retried after each delay in
 * `backoffMs`; any other answer is final.
 */
export interface PostOptions {
  headers: Record<string, string>
  body: string | Uint8Array
  timeoutMs?: number
  /** Delays between tries; `[500, 1500]` is three tries. */
  backoffMs?: number[]
  /** Statuses worth another try (5xx always are). */
  retryOn?: number[]
  /** Longest Retry-After honoured; 10 s by default. */
  retryAfterCapMs?: number
  dispatcher?: Dispatcher
}

export type PostResult = { ok: true; status: number; tries: number } | { ok: false; status?: number; error: string; tries: number; retryAfterMs?: number }

export const DEFAULT_BACKOFF_MS = [500, 1500]
const MAX_RETRY_AFTER_MS = 10_000
/** What is read of a target's answer body: enough for a status line and an error message. */
export const ANSWER_KEPT_BYTES = 1024

export async function postWithRetry(url: string, opts: PostOptions): Promise<PostResult> {
  // Loaded at the first alert, not at start: an idle bridge does not carry undici.
  const { request } = await import('undici')
  const backoff = opts.backoffMs ?? DEFAULT_BACKOFF_MS
  const timeoutMs = opts.timeoutMs ?? 5000
  let last: PostResult = { ok: false, error: 'not sent', tries: 0 }
  for (let attempt = 0; attempt <= backoff.length; attempt++) {
    if (attempt > 0) {
      // A Retry-After the service asked for (capped) wins over our own delay.
      const wait = !last.ok && last.retryAfterMs !== undefined ? Math.min(last.retryAfterMs, opts.retryAfterCapMs ?? MAX_RETRY_AFTER_MS) : backoff[attempt - 1]
      await new Promise((r) => setTimeout(r, wait))
    }
    try {
      const res = await request(url, { method: 'POST', headers: opts.headers, body: opts.body, signal: AbortSignal.timeout(timeoutMs), dispatcher: opts.dispatcher })
      // Only a failure's first words are kept, for the log: at most 1 KiB is read, within the
      // try's deadline, and the rest is dropped with the connection (lib/capped-read.ts).
      const { text: head } = await readCapped(res.body, { maxBytes: ANSWER_KEPT_BYTES, deadlineMs: timeoutMs })
      const text = termSafe(head.replace(/\s+/g, ' ').trim(), 200)
      if (res.statusCode < 300) return { ok: true, status: res.statusCode, tries: attempt + 1 }
      const retryAfter = Number(res.headers['retry-after'])
      last = {
        ok: false,
        status: res.statusCode,
        error: `HTTP ${res.statusCode}${text ? `: ${text}` : ''}`,
        tries: attempt + 1,
        ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
      }
      if (res.statusCode < 500 && !(opts.retryOn ?? []).includes(res.statusCode)) return last
    } catch (err) {
      const name = errField(err, 'name')
      const why =
        name === 'TimeoutError' || name === 'AbortError'
          ? `no answer within ${timeoutMs / 1000} s`
          : String(errField(errField(err, 'cause'), 'code') ?? errField(err, 'code') ?? errField(err, 'message') ?? err)
      last = { ok: false, error: why, tries: attempt + 1 }
    }
  }
  return last
}
