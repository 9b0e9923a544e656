/** The project's published web app; other origins come from config or BRIDGE_ALLOWED_ORIGINS. */
export const DEFAULT_ORIGINS = ['https://herdr-bridge.github.io']

const norm = (o: string) => o.trim().toLowerCase().replace(/\/+$/, '')

export function createCors(extra: string[]) {
  const allowed = new Set([...DEFAULT_ORIGINS, ...extra].map(norm))
  const isAllowed = (origin: string | null) => !!origin && allowed.has(norm(origin))
  return {
    isAllowed,
    /**
     * Answers a preflight before routing: it carries no credentials, so it cannot reach the
     * auth check. Unlisted origins get 403 and no Allow-Origin.
     */
    preflight(request: Request): Response | null {
      if (request.method !== 'OPTIONS' || !request.headers.get('access-control-request-method')) return null
      const origin = request.headers.get('origin')
      if (!isAllowed(origin)) return new Response(null, { status: 403, headers: { vary: 'Origin' } })
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': origin!,
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': 'Authorization, Content-Type',
          'access-control-max-age': '600',
          vary: 'Origin, Access-Control-Request-Headers',
        },
      })
    },
    /** Adds Allow-Origin to an actual response for a listed origin; never Allow-Credentials. */
    decorate(request: Request, response: Response): Response {
      const origin = request.headers.get('origin')
      try {
        response.headers.append('vary', 'Origin')
        if (isAllowed(origin)) response.headers.set('access-control-allow-origin', origin!)
      } catch {
        // Immutable headers (a proxied response): leave as is.
      }
      return response
    },
  }
}
