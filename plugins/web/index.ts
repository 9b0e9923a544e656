import { definePlugin, defineRoute } from '../../core/plugin.ts'
import { page } from './page.ts'

/** GET / and every unlisted GET path: the embedded page, no auth. */
export default definePlugin({
  name: 'web',
  routes: [
    defineRoute({
      method: 'GET',
      path: '/**',
      auth: 'none',
      describe: 'Embedded web page',
      response: { type: 'text/html' },
      handler: ({ ctx }) =>
        new Response(page(ctx.config.server_name), { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' } }),
    }),
  ],
})
