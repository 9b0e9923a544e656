import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'

/**
 * Slash commands of the agent in a pane.
 *   GET /commands?pane=   {pane, agent_kind, commands}; 404 unknown or plain pane; a kind without
 *                         a command surface → 200 with an empty list.
 * Asks the pane's kind for its `commands` capability (kind plugins read them from disk on every
 * request).
 */
export default defineBridgePlugin({
  name: 'commands',
  routes: [
    defineBridgeRoute({
      method: 'GET',
      path: '/commands',
      auth: 'device',
      describe: "Slash commands and skills of the pane's agent",
      response: v.object({
        pane: v.string(),
        agent_kind: v.string(),
        commands: v.array(
          v.object({
            name: v.string(),
            description: v.string(),
            argument_hint: v.optional(v.string()),
            source: v.picklist(['command', 'skill', 'builtin']),
            scope: v.optional(v.picklist(['user', 'project'])),
          }),
        ),
      }),
      query: v.object({ pane: v.pipe(v.string(), v.nonEmpty()) }),
      invalid: 'missing pane',
      async handler({ query, ctx }) {
        const found = await ctx.herdr.getPane(query.pane)
        if (!found) fail(404, 'no such pane')
        const { pane } = found
        if (!pane.agent) fail(404, 'no agent in this pane')
        const agent = await ctx.herdr.getAgent(query.pane).catch(() => null)
        const cwd = agent?.agent.cwd || pane.foreground_cwd || pane.cwd || ''
        const kind = ctx.agentKinds.get(pane.agent)
        const commands = kind?.commands ? await kind.commands({ cwd, ctx }) : []
        return { pane: found.ref.qualified, agent_kind: pane.agent, commands }
      },
    }),
  ],
})
