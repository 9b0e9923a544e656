import { fileURLToPath } from 'node:url'
import { join, resolve, sep } from 'node:path'
import type { RouteInput } from '../../core/plugin.ts'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { text } from '../../core/respond.ts'
import { unbuiltPage } from './page.ts'
import { confine, isAppRoute, serveFile, SECURITY_HEADERS } from './static.ts'

/**
 * The web client (a small PWA built by Vite from app/ into dist/), no auth:
 *   GET /assets/**             fingerprinted JS/CSS, cached for a year (immutable)
 *   GET /icons/**              app icons, cached for a day
 *   GET /sw.js                 service worker, no-cache
 *   GET /firebase-messaging-sw.js  the web push service worker (imports /sw.js), no-cache
 *   GET /manifest.webmanifest  web app manifest, no-cache
 *   GET /**                    the app shell (index.html, no-cache) for / and every unlisted
 *                              path without an extension; other missing files 404
 * Without dist/ (not built yet) the shell is a short page saying to run `npm run build:web`.
 */

const DIST = fileURLToPath(new URL('./dist/', import.meta.url))

/** Options: `dist`, another build folder (tests point it at a missing one). */
export interface WebOptions {
  dist?: string
}

/** The build folder served. */
interface WebState {
  dist: string
}
type Input = RouteInput<unknown, unknown, WebState>
const route = defineBridgeRoute.with<WebState>()

const notFound = () => text('not found', 404, SECURITY_HEADERS)

async function serveAsset({ event, state }: Input) {
  return (await serveFile(event, (id) => confine(state.dist, id), event.url.pathname)) ?? notFound()
}

async function serveShell(input: Input) {
  const { event, ctx, state } = input
  if (!isAppRoute(event.url.pathname)) return serveAsset(input)
  const shell = await serveFile(event, () => join(state.dist, 'index.html'), '/index.html')
  if (shell) return shell
  return new Response(unbuiltPage(ctx.config.server_name), {
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...SECURITY_HEADERS },
  })
}

export default defineBridgePlugin({
  name: 'web',
  setup: (_ctx, options: WebOptions | undefined): WebState => ({ dist: options?.dist ? resolve(options.dist) + sep : DIST }),
  routes: [
    route({
      method: 'GET',
      path: '/assets/**',
      auth: 'none',
      describe: 'Web client scripts and styles (fingerprinted, immutable)',
      response: { type: 'text/javascript' },
      handler: serveAsset,
    }),
    route({ method: 'GET', path: '/icons/**', auth: 'none', describe: 'Web client icons', response: { type: 'image/png' }, handler: serveAsset }),
    route({ method: 'GET', path: '/sw.js', auth: 'none', describe: 'Web client service worker', response: { type: 'text/javascript' }, handler: serveAsset }),
    route({
      method: 'GET',
      path: '/firebase-messaging-sw.js',
      auth: 'none',
      describe: 'Web client push service worker',
      response: { type: 'text/javascript' },
      handler: serveAsset,
    }),
    route({ method: 'GET', path: '/manifest.webmanifest', auth: 'none', describe: 'Web app manifest', response: { type: 'application/manifest+json' }, handler: serveAsset }),
    route({ method: 'GET', path: '/**', auth: 'none', describe: 'Web client (installable app)', response: { type: 'text/html' }, handler: serveShell }),
  ],
})
