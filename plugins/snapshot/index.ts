import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { jsonBodyResponse } from '../../lib/http/compress.ts'
import { createLiveSnapshot, type LiveSnapshot } from './live.ts'

/**
 * The merged state of every herdr session, answered from the live model (live.ts), which this
 * plugin provides to the others as the `liveSnapshot` service (the `/events` snapshot frame).
 *   GET /snapshot   device → {result: {snapshot}}; 502 when no session answers
 *
 * Options (bridge.config.ts `[snapshot, {...}]`): `reconcileMs` (default 5000), the longest a
 * change herdr made without an event stays unseen.
 */
export interface SnapshotOptions {
  reconcileMs?: number
}

const int = v.pipe(v.number(), v.integer())
const str = v.optional(v.string())
/** An element of a herdr array (pane, tab, workspace, layout): herdr's fields verbatim plus `session`. */
const labelled = v.looseObject({ session: v.string() })

/** One of `agents[]`: herdr's agent record verbatim, with the fields the bridge adds. */
export const agentSchema = v.looseObject({
  pane_id: v.string(),
  agent: str,
  agent_status: str,
  state_change_seq: v.optional(int),
  terminal_title_stripped: str,
  workspace_id: str,
  tab_id: str,
  cwd: str,
  foreground_cwd: str,
  session: v.string(),
  branch: v.string(),
  attention_rank: v.pipe(int, v.minValue(0), v.maxValue(4)),
  recency_rank: v.pipe(int, v.minValue(0)),
  last_activity_ts: v.optional(int),
  subagents: v.optional(v.object({ total: int, running: int })),
})

export const snapshotSchema = v.looseObject({
  agents: v.array(agentSchema),
  panes: v.array(labelled),
  tabs: v.array(labelled),
  workspaces: v.array(labelled),
  layouts: v.array(labelled),
  sessions: v.array(v.string()),
  focused_pane_id: v.optional(v.nullable(v.string())),
})

const route = defineBridgeRoute.with<{ live: LiveSnapshot }>()

export default defineBridgePlugin({
  name: 'snapshot',
  setup: (ctx, options: SnapshotOptions = {}): { live: LiveSnapshot } => ({ live: createLiveSnapshot(ctx, { reconcileMs: options.reconcileMs }) }),
  dispose: ({ live }) => live.stop(),
  provides: { liveSnapshot: ({ live }) => live },
  routes: [
    route({
      method: 'GET',
      path: '/snapshot',
      auth: 'device',
      describe: 'Merged snapshot of all herdr sessions, agents ranked for attention',
      response: v.object({ result: v.object({ snapshot: snapshotSchema }) }),
      // The body of the current revision, kept serialised (and compressed) across reads.
      async handler({ event, state }) {
        // h3 sets the answer's Vary from the event's headers (CORS names Origin there).
        event.res.headers.append('vary', 'Accept-Encoding')
        return jsonBodyResponse(event.req, await state.live.body())
      },
    }),
  ],
})
