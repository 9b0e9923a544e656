import { handleCors, isCorsOriginAllowed, isPreflightRequest, type CorsOptions, type H3Event } from 'h3'
import { errorResponse } from './respond.ts'

/** The project's published web app; other origins come from config or BRIDGE_ALLOWED_ORIGINS. */
export const DEFAULT_ORIGINS = ['https://herdr-bridge.github.io']

const norm = (o: string) => o.trim().toLowerCase().replace(/\/+$/, '')

/**
 * h3's CORS for an exact list of origins (no wildcards, never credentials): a config entry's
 * case or trailing slash is forgiven. Preflights are answered before routing, since they carry
 * no credentials and so could never pass the auth check.
 */
export function createCors(extra: string[]) {
  const allowed = new Set([...DEFAULT_ORIGINS, ...extra].map(norm))
  const options: CorsOptions = {
    origin: (origin) => allowed.has(norm(origin)),
    methods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type'],
    exposeHeaders: undefined,
    maxAge: '600',
  }
  return (event: H3Event) => {
    // h3 answers every preflight 204; an unlisted origin is refused outright instead.
    if (isPreflightRequest(event) && !isCorsOriginAllowed(event.req.headers.get('origin'), options)) {
      return errorResponse(403, `origin ${event.req.headers.get('origin')} is not allowed: add it to transport.allowed_origins`, 'text', { vary: 'Origin' })
    }
    return handleCors(event, options) || undefined
  }
}
