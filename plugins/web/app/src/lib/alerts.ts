/**
 * Whether this page's bridge can deliver alerts to this browser: it serves a web push config
 * (`GET /push-config`, read once per page by push.ts) or a Web Push public key
 * (`GET /webpush/key`). Only then is "Enable alerts" offered: a button that can never deliver
 * anything is worse than none. The one place to extend when the bridge learns another way.
 */
export type Fetch = (url: string, init?: RequestInit) => Promise<Response>

/** A JSON 200 from `path` (the app shell answers unknown paths with HTML, which does not count). */
export async function answersJson(fetcher: Fetch, path: string): Promise<boolean> {
  try {
    const r = await fetcher(path, { cache: 'no-store', signal: AbortSignal.timeout(5000) })
    return r.status === 200 && (r.headers.get('content-type') ?? '').includes('json')
  } catch {
    return false
  }
}

export async function alertsDeliverable(pushConfig: () => Promise<unknown>, fetcher: Fetch = (u, i) => fetch(u, i)): Promise<boolean> {
  if ((await pushConfig()) != null) return true
  return answersJson(fetcher, '/webpush/key')
}
