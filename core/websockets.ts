import { wsDeflateFor } from '../lib/http/compress.ts'
import crossws from 'crossws/adapters/node'
import type { Peer } from 'crossws'
import type { ConsolaInstance } from 'consola'
import type { BridgeConfig } from './config.ts'
import type { LoadedPlugins, RunningPlugin } from './loader.ts'
import type { WsContext } from './plugin.ts'
import type { DeviceStore } from '../storage/devices.ts'
import type { createDeviceSockets } from './device-sockets.ts'
import { authenticate, credentialOf, roleAllows, roleRefusal, socketRole } from './auth.ts'
import { text, unauthorized } from './respond.ts'
import { acceptWs, errorToResponse } from './http.ts'

/**
 * Largest inbound WebSocket message. Clients send only small control frames and keystrokes;
 * ws's own default (100 MiB) would let one socket make the bridge buffer that much. Bigger
 * frames are refused with 1009 as soon as their header announces the size.
 */
export const MAX_WS_MESSAGE = 1024 * 1024

export interface WsDeps {
  config: BridgeConfig
  devices: DeviceStore
  deviceSockets: ReturnType<typeof createDeviceSockets>
  log: ConsolaInstance
  plugin: (name: string) => RunningPlugin
}

/** crossws hooks for every manifest WebSocket: auth before the upgrade, then the route's own hooks. */
export function createWebSockets(loaded: LoadedPlugins, deps: WsDeps) {
  const { config, devices, deviceSockets, log, plugin } = deps
  return crossws({
    serverOptions: { maxPayload: MAX_WS_MESSAGE },
    resolve: (request: Request) => {
      const url = new URL(request.url)
      const route = loaded.websockets.get(url.pathname)
      if (!route) return { upgrade: () => text('not found', 404) }
      const { ctx: rctx, state } = plugin(route.plugin)
      const wsCtx = (peer: Peer) => peer.context.ws as WsContext
      return {
        upgrade: async (req: Request) => {
          const auth = authenticate(route.auth, credentialOf(req, url, !!route.queryToken), config.admin_token, devices)
          if (!auth) return unauthorized()
          const role = socketRole(route, url.searchParams)
          if (!roleAllows(auth, role)) return text(roleRefusal(auth, role), 403)
          const ticket = auth.deviceId ? deviceSockets.beginUpgrade(auth.deviceId) : null
          try {
            const accepted = await acceptWs(route, plugin(route.plugin), req, url, auth)
            if (accepted instanceof Response) return accepted
            // Revoked while `accept` awaited (a pane lookup): the credential no longer holds.
            if (ticket?.revoked) return unauthorized()
            return { context: { ws: { auth, url, ctx: rctx, state, accepted } satisfies WsContext }, perMessageDeflate: wsDeflateFor(route) }
          } catch (err) {
            return errorToResponse(err, 'text', log, `WS ${url.pathname}`)
          } finally {
            ticket?.done()
          }
        },
        open: (peer: Peer) => {
          const w = wsCtx(peer)
          if (w.auth.deviceId && !deviceSockets.admit(w.auth.deviceId, peer)) {
            w.revoked = true
            return peer.close(1008, 'device revoked')
          }
          return route.open(peer, w)
        },
        message: (peer: Peer, message) => (wsCtx(peer).revoked ? undefined : route.message?.(peer, message, wsCtx(peer))),
        close: (peer: Peer, details) => {
          const w = wsCtx(peer)
          if (w?.auth.deviceId) deviceSockets.forget(w.auth.deviceId, peer)
          // A socket refused at `open` was never handed to the route.
          if (w?.revoked) return
          return route.close?.(peer, w, details)
        },
        error: (peer: Peer, error) => log.debug(`websocket ${url.pathname}: ${error?.message ?? error}`),
      }
    },
  })
}
