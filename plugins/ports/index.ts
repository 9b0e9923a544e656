import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'
import { splitId, qualifyId } from '../../core/herdr/index.ts'
import { reachableHost, directUrl, type PortScanner } from '../../lib/ports/index.ts'
import { createHostPortScanner } from './scanner.ts'

/**
 * HTTP listeners on the host.
 *   GET /ports[?pane=]   {ports: [{port, bind, pid, proc, loopback, pane?, agent?, url?}]} sorted by
 *                        port; `pane` keeps that pane's listeners; 502 when the host cannot be scanned.
 */
export default defineBridgePlugin({
  name: 'ports',
  // One scanner (and scan cache) per bridge, shared with /suggestions as the `portScanner` service.
  setup: (ctx): PortScanner => createHostPortScanner(ctx),
  provides: { portScanner: (scanner) => scanner },
  routes: [
    defineBridgeRoute.with<PortScanner>()({
      method: 'GET',
      path: '/ports',
      auth: 'device',
      describe: 'HTTP listeners on the host, attributed to the pane that spawned them',
      response: v.object({
        ports: v.array(
          v.object({
            port: v.pipe(v.number(), v.integer()),
            bind: v.string(),
            pid: v.pipe(v.number(), v.integer()),
            proc: v.string(),
            loopback: v.boolean(),
            pane: v.optional(v.string()),
            agent: v.optional(v.string()),
            url: v.optional(v.string()),
          }),
        ),
      }),
      query: v.object({ pane: v.optional(v.string()) }),
      async handler({ query, ctx, event, state }) {
        let listeners
        try {
          listeners = await state.scan()
        } catch (err) {
          fail(502, `port scan failed: ${(err as Error).message}`)
        }
        const want = query.pane ? (({ session, id }) => qualifyId(session, id))(splitId(query.pane)) : undefined
        const host = reachableHost(event.req.headers.get('host'), ctx)
        return {
          ports: listeners
            .filter((l) => !want || l.pane === want)
            .map((l) => {
              const url = directUrl(l, host)
              return url ? { ...l, url } : { ...l }
            }),
        }
      },
    }),
  ],
})
