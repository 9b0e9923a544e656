import { stat, readFile } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'

/**
 * Serving the built web client from plugins/web/dist/. Pure path and header rules live here so
 * they can be tested without a server; the route handlers only read the file.
 */

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

export const contentTypeOf = (file: string): string => TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'

/** Vite fingerprints everything under /assets/, so those never change; the rest must revalidate. */
export function cacheControlOf(urlPath: string): string {
  if (urlPath.startsWith('/assets/')) return 'public, max-age=31536000, immutable'
  if (urlPath.startsWith('/icons/')) return 'public, max-age=86400'
  return 'no-cache'
}

/**
 * Maps a URL path to a file under `root`, or null when it is malformed or would leave `root`.
 * Decoding happens once; NUL bytes, backslashes and encoded separators are refused outright.
 */
export function confine(root: string, urlPath: string): string | null {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return null
  }
  if (decoded.includes('\0') || decoded.includes('\\') || !decoded.startsWith('/')) return null
  if (decoded.split('/').some((seg) => seg === '..')) return null
  const file = normalize(join(root, decoded))
  const base = root.endsWith(sep) ? root : root + sep
  return file.startsWith(base) ? file : null
}

/** Paths that look like files (have an extension) 404 when missing; the rest get the app shell. */
export const isAppRoute = (urlPath: string): boolean => !urlPath.startsWith('/assets/') && !urlPath.startsWith('/icons/') && extname(urlPath) === ''

export interface StaticFile {
  body: Buffer
  etag: string
  type: string
}

/** Reads a regular file (never a directory: there is no listing), or null. */
export async function readStatic(file: string): Promise<StaticFile | null> {
  try {
    const st = await stat(file)
    if (!st.isFile()) return null
    const body = await readFile(file)
    return { body, etag: `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`, type: contentTypeOf(file) }
  } catch {
    return null
  }
}

/** Headers every page and asset carries. */
export const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
}

/**
 * The app talks to any paired bridge (other origins included) over HTTP and WebSocket, draws
 * camera frames and attachment previews from blob: URLs, and xterm.js sets inline styles.
 */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self' http: https: ws: wss:; worker-src 'self'; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

export function fileResponse(f: StaticFile, urlPath: string, request: Request, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { 'content-type': f.type, 'cache-control': cacheControlOf(urlPath), etag: f.etag, ...SECURITY_HEADERS, ...extra }
  if (f.type.startsWith('text/html')) headers['content-security-policy'] = CSP
  if (request.headers.get('if-none-match') === f.etag) return new Response(null, { status: 304, headers })
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(f.body), { status: 200, headers })
}
