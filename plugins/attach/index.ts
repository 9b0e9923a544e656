import type { Peer } from 'crossws'
import { defineBridgePlugin, defineBridgeWebSocket } from '../../core/plugin.ts'
import { text } from '../../core/respond.ts'
import { attachQuery } from './frames.ts'
import { startRelay, type Relay, type RelayLimits, type RelayOptions } from './relay.ts'

/**
 * Live terminal (frames and close codes: docs/api-websockets.md).
 *   WS /attach?pane=<id>&token=<bearer>[&mode=control|observe][&cols=C&rows=R][&takeover=1]
 *
 * Streams through herdr's CLI (`BRIDGE_HERDR_BIN`): `terminal session control` (default) or
 * `terminal session observe`. Server → client: binary frames of raw terminal bytes. Client →
 * server: binary frames are typed into the pane; a text frame `{"type":"resize","cols","rows"}`
 * (1..1000) resizes the pane's PTY; any other text frame is ignored.
 *
 * - mode=observe is read-only: input and resizes are dropped, the desk's PTY size is untouched,
 *   and any number of observers may watch. It is the mode for watching.
 * - One controller per pane (herdr's rule). A second controller is refused, closing with 4409
 *   and a reason that says how to proceed, so a phone never silently steals a desk session;
 *   `takeover=1` takes the pane over explicitly, and the previous controller closes with 4001.
 * - Before upgrading: 401 without a valid token, 400 `want ?pane=<pane_id>` (or a bad
 *   mode/cols/rows), 404 for an unknown pane.
 * - A plain pane with scrollback gets one history frame (up to 1000 unwrapped lines, CRLF, no
 *   clear-screen prefix) before the first repaint; agent panes and alternate-screen programs none.
 * - Backpressure: while over 1 MiB is queued for a client, the CLI's output is not read; a
 *   client stuck for 30 s is dropped (options `high_water_bytes`, `stuck_ms`).
 * - Close codes: 1000 stream ended (with herdr's reason, e.g. the pane went away), 4409 refused
 *   second controller, 4001 taken over, 1011 the CLI failed, 1013 the client stopped reading.
 */

interface AttachState {
  relays: Map<string, Relay>
  limits: RelayLimits
}
const socket = defineBridgeWebSocket.with<AttachState>()

export default defineBridgePlugin({
  name: 'attach',
  setup: (_ctx, limits: RelayLimits | undefined): AttachState => ({ relays: new Map(), limits: limits ?? {} }),
  // Shutdown ends every stream and waits for each CLI process to be gone.
  async dispose({ relays }) {
    const live = [...relays.values()]
    relays.clear()
    for (const r of live) r.end()
    await Promise.all(live.map((r) => r.exited))
  },
  websockets: [
    socket({
      path: '/attach',
      auth: 'device',
      queryToken: true,
      // Watching (mode=observe) is a read; control (the default) types into the pane. Every
      // `mode` given must say observe: the query schema takes the last of repeated values.
      role: (q) => (q.getAll('mode').length && q.getAll('mode').every((m) => m === 'observe') ? 'viewer' : 'default'),
      describe: 'Live terminal of a pane (binary frames both ways)',
      query: attachQuery,
      doc: {
        serverFrames: {
          binary: 'raw terminal bytes; a plain pane first gets one history frame (up to 1000 unwrapped lines, CRLF)',
        },
        clientFrames: {
          binary: 'raw input bytes typed into the pane (dropped in observe mode)',
          resize: "text {type: 'resize', cols: 1..1000, rows: 1..1000}; any other text frame is ignored",
        },
      },
      async accept({ query, ctx, state }): Promise<RelayOptions | Response> {
        const got = await ctx.herdr.getPane(query.pane)
        if (!got) return text(`pane ${query.pane} not found`, 404)
        return {
          limits: state.limits,
          ref: got.ref,
          mode: query.mode,
          cols: query.cols,
          rows: query.rows,
          takeover: query.takeover,
          // Agents draw on the alternate screen; reading their history would also scroll their UI.
          seedHistory: !got.pane.agent,
        }
      },
      open(peer: Peer, { ctx, state, accepted }) {
        state.relays.set(peer.id, startRelay(ctx, peer, accepted))
      },
      message(peer, message, { state }) {
        const raw = message.rawData as unknown
        state.relays.get(peer.id)?.input(typeof raw === 'string' ? raw : message.uint8Array(), typeof raw === 'string')
      },
      close(peer, ws) {
        const relay = ws?.state.relays.get(peer.id)
        ws?.state.relays.delete(peer.id)
        relay?.end()
      },
    }),
  ],
})
