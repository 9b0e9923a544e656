/**
 * agent-state: the parsed state card and the permission-mode cycle.
 *
 *   GET  /agent-state?pane=<pane_id>[&recent=1]   the card, `cardSchema` below (device; ?token= accepted)
 *   POST /agent-mode/cycle {pane}                 one step around the permission-mode ring (device)
 *
 * Reads each kind's `screen` (and `question`) capability from the registry; the kind plugins
 * contribute them. The card itself is built by lib/card.ts so push notifications read the same
 * card.
 */
import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { CardReadError, readCard } from '../../core/card.ts'
import { fail } from '../../core/respond.ts'
import { cycleMode } from './mode-cycle.ts'

const STATUS = v.picklist(['idle', 'working', 'blocked', 'done', 'unknown'])

/** The card, the same shape for every kind; `blocked` only while agent_status is blocked. */
const cardSchema = v.object({
  pane_id: v.string(),
  agent_kind: v.string(),
  agent_status: STATUS,
  permission_mode: v.optional(v.string()),
  headline: v.string(),
  detail: v.string(),
  blocked: v.optional(
    v.object({
      question: v.string(),
      options: v.array(
        v.object({ index: v.pipe(v.number(), v.integer(), v.minValue(0)), label: v.string(), selected: v.boolean(), key: v.optional(v.string()), risky: v.optional(v.boolean()) }),
      ),
      category: v.optional(v.string()),
    }),
  ),
  transcript: v.optional(v.array(v.string())),
  parsed: v.boolean(),
})

const wantsRecent = (r: string) => /^(1|true|yes)$/i.test(r.trim())

export default defineBridgePlugin({
  name: 'agent-state',
  routes: [
    defineBridgeRoute({
      method: 'GET',
      path: '/agent-state',
      auth: 'device',
      queryToken: true,
      query: v.object({
        pane: v.pipe(v.string(), v.trim(), v.minLength(1)),
        recent: v.pipe(
          v.optional(v.string(), ''),
          v.transform(wantsRecent),
          v.description("1, true or yes: read the pane's last 80 lines of output instead of its visible screen"),
        ),
      }),
      invalid: 'want ?pane=<pane_id>',
      describe: 'The parsed state card of an agent pane',
      response: cardSchema,
      async handler({ query, ctx }) {
        try {
          const card = await readCard(ctx, query.pane, { recent: query.recent })
          if (!card) fail(404, 'no such agent')
          return card
        } catch (err) {
          if (err instanceof CardReadError) fail(502, err.message)
          throw err
        }
      },
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/agent-mode/cycle',
      auth: 'device',
      body: v.object({ pane: v.pipe(v.string(), v.trim(), v.minLength(1)) }),
      audit: ({ body }) => ({ pane: body.pane }),
      invalid: 'want {pane}',
      describe: 'Advance the permission mode of an agent one step',
      // permission_mode only when the new mode was read back within about a second.
      response: v.object({ ok: v.literal(true), cycled: v.literal(true), permission_mode: v.optional(v.string()) }),
      handler: ({ body, ctx }) => cycleMode(ctx, body.pane),
    }),
  ],
})
