import type { Peer } from 'crossws'
import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeWebSocket } from '../../core/plugin.ts'
import type { LiveSnapshot } from '../../core/services.ts'
import { text } from '../../core/respond.ts'
import { openEventStream, DEFAULT_STREAM, type EventStream, type StreamOptions } from './stream.ts'

/**
 * The unified event stream (frames and close codes: docs/api-websockets.md).
 *   WS /events?token=   device; snapshot frame, then every bus event in seq order, heartbeats
 *                       401 before the upgrade, 426 for a plain GET, 503 when turned off
 *                       close 1000 (client frame, shutdown), 4000 lagged, 1011 snapshot failed
 *
 * Options (bridge.config.ts `[events, {...}]`): `enabled` (default true), `heartbeatMs`,
 * `maxBufferedBytes`, `maxPending` (see stream.ts).
 */
export interface EventsOptions extends Partial<StreamOptions> {
  enabled?: boolean
}

interface EventsState {
  options: StreamOptions & { enabled: boolean }
  peers: Set<Peer>
  /** The snapshot frame comes from the same live model as GET /snapshot (the `liveSnapshot` service). */
  live: LiveSnapshot
}
const socket = defineBridgeWebSocket.with<EventsState>()
const streams = new WeakMap<object, EventStream>()

export default defineBridgePlugin({
  name: 'events',
  uses: ['liveSnapshot'],
  setup: (ctx, options: EventsOptions = {}): EventsState => ({ options: { ...DEFAULT_STREAM, enabled: true, ...options }, peers: new Set(), live: ctx.services.liveSnapshot }),
  // Teardown closes /events with 1000 (clients reconnect on 1000 or 4000); the core's generic
  // 1001 would come later.
  dispose({ peers }) {
    for (const peer of peers) {
      streams.get(peer)?.stop()
      try {
        peer.close(1000, 'server shutting down')
      } catch {
        // already gone
      }
    }
    peers.clear()
  },
  websockets: [
    socket({
      path: '/events',
      // No permessage-deflate here. With it, undici's WebSocket (Node's own) reports 1006 for a
      // normal close that arrives while it is still inflating a compressed frame (its parser waits
      // for zlib and the TCP end comes first): 300 of 300 clients that closed on open saw 1006,
      // while raw-socket clients got the compressed snapshot and then close 1000 every time
      // (tests/perf/compress.test.ts shows the same on /agent-transcript). The churn test
      // (tests/hardening/events-load.test.ts) uses undici, and most frames here are deltas under
      // the 1 KiB threshold anyway; /snapshot over HTTP is compressed.
      deflate: false,
      auth: 'device',
      queryToken: true,
      describe: 'Snapshot then live deltas from herdr and the bridge',
      query: v.object({}),
      doc: {
        serverFrames: {
          snapshot: "first frame: {type: 'snapshot', source: 'bridge', seq: int (baseline), ts: int unix ms, snapshot: <GET /snapshot body>}",
          delta:
            "{source: 'multiplexer'|'bridge', type: string, seq: int (baseline + 1, + 2, … no gaps), ts: int unix ms, payload: object (herdr's data verbatim plus session, or a bridge event's payload)}",
          heartbeat: "{type: 'heartbeat', ts: int} every 20 s while idle; no seq, changes nothing",
        },
        clientFrames: {
          any: 'none expected: any frame, text or binary, ends the stream (close 1000 end of stream)',
        },
      },
      accept({ state }) {
        if (!state.options.enabled) return text('event bus not enabled', 503)
      },
      open(peer, { ctx, state }) {
        const stream = openEventStream(
          peer,
          {
            bus: ctx.bus,
            now: ctx.now,
            snapshot: async () => ({ result: { snapshot: await state.live.get() } }),
            onError: (err) => ctx.log.debug(`events: snapshot failed: ${(err as Error)?.message ?? err}`),
          },
          state.options,
        )
        streams.set(peer, stream)
        state.peers.add(peer)
      },
      // Clients never send data frames here; any frame means the client is done.
      message(peer) {
        streams.get(peer)?.stop()
        peer.close(1000, 'end of stream')
      },
      close(peer, ws) {
        streams.get(peer)?.stop()
        streams.delete(peer)
        ws?.state.peers.delete(peer)
      },
    }),
  ],
})
