import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { firstId } from '../../lib/strings.ts'
import { fail } from '../../core/respond.ts'
import { HerdrError, isDefaultSession, qualify } from '../../core/herdr/index.ts'
import { prepareCall } from './allowlist.ts'

/**
 * The allowlisted herdr proxy. Errors are JSON `{error}`.
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
      // The allowlist, the params' shape and the session are checked in prepareCall, in a fixed
      // order: 403 for a method not allowed comes before any shape error.
      body: v.object({
        method: v.pipe(v.string(), v.trim(), v.nonEmpty(), v.description('an allowlisted herdr method, e.g. pane.read')),
        params: v.pipe(v.optional(v.unknown()), v.description("object of the method's params; ids may be session-qualified")),
        session: v.pipe(v.optional(v.unknown()), v.description('string: the herdr session, when no id in params names it')),
      }),
      audit: ({ body }) => {
        const p = (body.params && typeof body.params === 'object' ? body.params : {}) as Record<string, unknown>
        return { method: body.method, pane: firstId(p.pane_id, p.target_pane_id, p.workspace_id, p.tab_id) }
      },
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
