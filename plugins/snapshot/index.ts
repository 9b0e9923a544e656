import { definePlugin, defineRoute } from '../../core/plugin.ts'
import { buildSnapshot } from '../../core/snapshot.ts'

/**
 * The merged state of every herdr session.
 *   GET /snapshot   device → {result: {snapshot}}; 502 when no session answers
 */
export default definePlugin({
  name: 'snapshot',
  routes: [
    defineRoute({
      method: 'GET',
      path: '/snapshot',
      auth: 'device',
      describe: 'Merged snapshot of all herdr sessions, agents ranked for attention',
      async handler({ ctx }) {
        return { result: { snapshot: await buildSnapshot(ctx) } }
      },
    }),
  ],
})
