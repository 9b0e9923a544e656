import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { firstId } from '../../lib/strings.ts'
import { fail } from '../../core/respond.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { createPane, waitForPrompt } from '../../core/herdr/panes.ts'

/**
 * Pane creation and closing; created panes never take the operator's focus.
 *   POST /pane/new    {split_from? | workspace_id?, direction?, cwd?, label?, command?}
 *                     → {pane_id, tab_id, workspace_id}; `command` is typed and run in the new
 *                     pane; emits bridge `pane_created`
 *   POST /pane/close  {pane_id} → {closed: true, pane_id}; emits bridge `pane_closed`
 */

const PROMPT_WAIT_MS = 8000
const opt = () => v.optional(v.string('want a string'))

/** herdr's "no such thing" becomes 404; other herdr errors stay 502 (core). */
function notFoundAs404(err: unknown): never {
  if (err instanceof HerdrError && err.notFound) fail(404, err.message || err.code)
  throw err
}

export default defineBridgePlugin({
  name: 'panes',
  routes: [
    defineBridgeRoute({
      method: 'POST',
      path: '/pane/new',
      auth: 'device',
      describe: 'Split a pane or open a tab, optionally running a command in it',
      response: v.object({ pane_id: v.string(), tab_id: v.string(), workspace_id: v.string() }),
      body: v.object({
        split_from: opt(),
        workspace_id: opt(),
        direction: v.optional(v.picklist(['right', 'down', 'up', 'left'], 'want right, down, up or left')),
        cwd: opt(),
        label: opt(),
        command: opt(),
      }),
      audit: ({ body }) => ({ pane: firstId(body.split_from, body.workspace_id) }),
      async handler({ body, ctx }) {
        if (body.split_from && body.workspace_id) fail(400, 'want at most one of split_from, workspace_id')
        if (body.cwd && !body.cwd.startsWith('/')) fail(400, 'cwd must be an absolute path')
        if (body.command !== undefined && /[\0\r\n]/.test(body.command)) fail(400, 'command must be one line')
        const created = await createPane(ctx.herdr, body).catch(notFoundAs404)
        if (body.command?.trim()) {
          // Typed input is buffered by the terminal, but a shell still starting may drop it.
          await waitForPrompt(ctx.herdr, created.session, created.pane.pane_id, PROMPT_WAIT_MS).catch(() => undefined)
          await ctx.herdr.call(created.session, 'pane.send_input', { pane_id: created.pane.pane_id, text: body.command, keys: ['enter'] })
        }
        ctx.bus.publish('bridge', 'pane_created', { ...created.ids, session: created.session })
        return created.ids
      },
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/pane/close',
      auth: 'device',
      describe: 'Close a pane',
      response: v.object({ closed: v.literal(true), pane_id: v.string() }),
      body: v.object({ pane_id: v.pipe(v.string('want a string'), v.nonEmpty('want a pane id')) }),
      audit: ({ body }) => ({ pane: body.pane_id }),
      invalid: 'want {pane_id}',
      async handler({ body, ctx }) {
        const ref = await ctx.herdr.resolve(body.pane_id).catch(notFoundAs404)
        await ctx.herdr.call(ref.session, 'pane.close', { pane_id: ref.id }).catch(notFoundAs404)
        ctx.bus.publish('bridge', 'pane_closed', { pane_id: ref.qualified, session: ref.session })
        return { closed: true, pane_id: ref.qualified }
      },
    }),
  ],
})
