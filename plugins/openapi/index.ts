import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { buildOpenApi } from './build.ts'

/** GET /openapi.json (no auth): the API document, generated from the live route manifests. */
export default defineBridgePlugin({
  name: 'openapi',
  routes: [
    defineBridgeRoute({
      method: 'GET',
      path: '/openapi.json',
      auth: 'none',
      describe: 'OpenAPI 3.1 document of every route, generated from the manifests',
      response: v.record(v.string(), v.unknown()),
      handler: ({ ctx }) => buildOpenApi(ctx.server.routes),
    }),
  ],
})
