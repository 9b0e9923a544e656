import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { readJson, writeJson } from '../../storage/index.ts'
import { fail } from '../../core/respond.ts'
import { noControl } from '../../lib/strings.ts'
import { createSeenBook, MAX_SEEN, type SeenBook } from './book.ts'

/**
 * "Seen" marks, one per agent pane, shared by every device of the bridge's user: opening an
 * agent on the phone marks it seen on the laptop's browser too.
 *   GET  /seen                 → {seen: {pane: {seq, at}}}
 *   POST /seen {pane, seq}     marks the pane seen up to its `state_change_seq` (never back);
 *                              bridge event `seen_changed {pane, seq, at}` on /events
 * Kept in `seen.json` in the data dir, at most 1000 panes (the oldest marks go first).
 */

const KEY = 'seen.json'
const route = defineBridgeRoute.with<SeenBook>()
const markSchema = v.object({ seq: v.number(), at: v.number() })

export default defineBridgePlugin({
  name: 'seen',
  async setup(ctx): Promise<SeenBook> {
    const stored = await readJson<unknown>(ctx.storage, KEY, 'seen marks')
    return createSeenBook(stored, ctx.now, (marks) => writeJson(ctx.storage, KEY, marks))
  },
  dispose: (book) => book.flush(),
  routes: [
    route({
      method: 'GET',
      path: '/seen',
      auth: 'device',
      errors: 'json',
      describe: 'Which agents this user has seen, and up to which state change (shared by all devices)',
      response: v.object({ seen: v.record(v.string(), markSchema) }),
      handler: ({ state }) => ({ seen: state.all() }),
    }),
    route({
      method: 'POST',
      path: '/seen',
      auth: 'device',
      // Reading is what a watching device does: a viewer marks what it read.
      role: 'viewer',
      errors: 'json',
      describe: `Mark an agent seen up to a state change (seq never goes back; at most ${MAX_SEEN} panes kept)`,
      body: v.object({
        pane: v.pipe(v.string('pane: want a pane id'), v.nonEmpty('pane: want a pane id'), v.maxLength(200, 'pane: at most 200 characters'), noControl('pane')),
        // Optional in the schema only so a missing seq gets the same one-line 400 as a wrong one.
        seq: v.optional(v.pipe(v.number('seq: want a number'), v.integer('seq: want an integer'), v.minValue(0, 'seq: want 0 or more'))),
      }),
      response: v.object({ pane: v.string(), seq: v.number(), at: v.number(), changed: v.boolean() }),
      audit: ({ body }) => ({ pane: body.pane }),
      async handler({ body, ctx, state }) {
        if (body.seq === undefined) fail(400, 'seq: want a number')
        const r = await state.mark(body.pane, body.seq).catch((err: NodeJS.ErrnoException) => fail(500, `cannot save the seen marks: ${err.code ?? err.message}`))
        if (r.changed) ctx.bus.publish('bridge', 'seen_changed', { pane: body.pane, seq: r.seq, at: r.at })
        return { pane: body.pane, ...r }
      },
    }),
  ],
})
