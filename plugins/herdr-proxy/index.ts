import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'
import { HerdrError, isDefaultSession, qualify } from '../../core/herdr/index.ts'
import { prepareCall } from './allowlist.ts'

/**
 * The allowlisted herdr proxy (spec 1 §4.7). Errors are JSON `{error}`.
 *   POST /herdr  device {method, params?, session?} → {result}
 *     400 malformed body or contradictory sessions; 403 method not allowed (herdr untouched);
 *     404 unknown session or a herdr `*_not_found`; 405 non-POST; 502 any other herdr failure.
 */
export default defineBridgePlugin({
  name: 'herdr-proxy',
  routes: [
    defineBridgeRoute({
      method: 'POST',
      path: '/herdr',
      auth: 'device',
      errors: 'json',
      invalid: 'want {method, params}',
      describe: 'Call an allowlisted herdr method; ids in params and result are session-qualified',
      // herdr's result object verbatim (ids qualified); its `type` names the result kind.
      response: v.object({ result: v.looseObject({ type: v.optional(v.string()) }) }),
      async handler({ body, ctx }) {
        const call = prepareCall(body)
        if (!(await sessionKnown(ctx, call.session))) fail(404, `session ${call.session} not found`)
        let result: unknown
        try {
          result = await ctx.herdr.call(call.session, call.method, call.params)
        } catch (err) {
          if (err instanceof HerdrError) fail(err.notFound ? 404 : 502, `herdr: ${err.code}: ${err.message}`)
          throw err
        }
        return { result: qualify(call.session, result ?? {}) }
      },
    }),
  ],
})

async function sessionKnown(ctx: PluginContext, session: string): Promise<boolean> {
  if (isDefaultSession(session) || ctx.herdr.sessions().includes(session)) return true
  // A session started since the last scan.
  await ctx.herdr.refresh().catch(() => {})
  return ctx.herdr.sessions().includes(session)
}
