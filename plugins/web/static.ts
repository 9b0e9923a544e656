import { stat, readFile } from 'node:fs/promises'
import { serveStatic, type H3Event, type StaticAssetMeta } from 'h3'
import { extname, join, normalize, sep } from 'node:path'

/**
 * Serving the built web client from plugins/web/dist/ through h3's serveStatic. The path and
 * header rules are plain functions, so they can be tested without a server.
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
 * Maps serveStatic's id to a file under `root`, or null when it would leave `root`. The id is
 * decoded once already with reserved characters still escaped, and no built file has a `%` in
 * its name: a remaining escape, a NUL byte, a backslash or a `..` segment is refused outright.
 */
export function confine(root: string, id: string): string | null {
  if (/[%\\\0]/.test(id) || !id.startsWith('/')) return null
  if (id.split('/').some((seg) => seg === '..')) return null
  const file = normalize(join(root, id))
  const base = root.endsWith(sep) ? root : root + sep
  return file.startsWith(base) ? file : null
}

/** Paths that look like files (have an extension) 404 when missing; the rest get the app shell. */
export const isAppRoute = (urlPath: string): boolean => !urlPath.startsWith('/assets/') && !urlPath.startsWith('/icons/') && extname(urlPath) === ''

/** A regular file's type, size and validators (never a directory: there is no listing), or undefined. */
async function metaOf(file: string | null): Promise<StaticAssetMeta | undefined> {
  const st = file ? await stat(file).catch(() => null) : null
  if (!st?.isFile()) return undefined
  return { type: contentTypeOf(file!), size: st.size, mtime: st.mtime, etag: `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"` }
}

/**
 * Serves one file through h3's serveStatic (HEAD, 304 on a matching validator); `fileOf` maps
 * its id to a file, null when there is none. Answers undefined when nothing is there to serve.
 */
export function serveFile(event: H3Event, fileOf: (id: string) => string | null, cachePath: string) {
  const headers: Record<string, string> = { 'cache-control': cacheControlOf(cachePath), ...SECURITY_HEADERS }
  if (contentTypeOf(cachePath).startsWith('text/html')) headers['content-security-policy'] = CSP
  return serveStatic(event, {
    fallthrough: true,
    indexNames: [],
    headers,
    getMeta: (id) => metaOf(fileOf(id)),
    getContents: (id) => readFile(fileOf(id)!),
  })
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
