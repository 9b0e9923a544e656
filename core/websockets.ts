import { wsDeflateFor } from '../lib/http/compress.ts'
import crossws from 'crossws/adapters/node'
import { getWebSocketHooks, type Hooks, type Peer } from 'crossws'
import type { H3, H3Event } from 'h3'
import type { ConsolaInstance } from 'consola'
import type { BridgeConfig } from './config.ts'
import type { MountedWs, RunningPlugin } from './loader.ts'
import type { WsContext } from './plugin.ts'
import type { DeviceStore } from '../storage/devices.ts'
import type { DeviceSockets } from './device-sockets.ts'
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
  deviceSockets: DeviceSockets
  log: ConsolaInstance
  plugin: (name: string) => RunningPlugin
}

/**
 * The crossws hooks of one manifest WebSocket for one upgrade request, as h3's
 * `defineWebSocketHandler` takes them (core/http.ts mounts them on the route's path): auth and
 * role before the upgrade, the route's `accept`, then the route's own hooks. A device's sockets are
 * tracked so that revoking it closes them, including an upgrade still awaiting `accept`.
 */
export function webSocketHooks(route: MountedWs, deps: WsDeps): (event: H3Event) => Partial<Hooks> {
  const { config, devices, deviceSockets, log, plugin } = deps
  const wsCtx = (peer: Peer) => peer.context.ws as WsContext
  return (event) => {
    const url = new URL(event.req.url)
    return {
      upgrade: async (req: Request) => {
        const auth = authenticate(route.auth, credentialOf(req, url, !!route.queryToken), config.admin_token, devices)
        if (!auth) return unauthorized()
        const role = socketRole(route, url.searchParams)
        if (!roleAllows(auth, role)) return text(roleRefusal(auth, role), 403)
        const ticket = auth.deviceId ? deviceSockets.beginUpgrade(auth.deviceId) : null
        try {
          const running = plugin(route.plugin)
          const accepted = await acceptWs(route, running, req, url, auth)
          if (accepted instanceof Response) return accepted
          // Revoked while `accept` awaited (a pane lookup): the credential no longer holds.
          if (ticket?.revoked) return unauthorized()
          return { context: { ws: { auth, url, ctx: running.ctx, state: running.state, accepted } satisfies WsContext }, perMessageDeflate: wsDeflateFor(route) }
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
  }
}

/**
 * The node WebSocket server for the app's WebSocket routes: an upgrade request goes through the
 * app (Host check, routing) marked as an upgrade, and the route's `defineWebSocketHandler` hands
 * its hooks over on the request. A path without a WebSocket route is refused with 404.
 */
export function createWebSockets(app: H3) {
  return crossws({
    serverOptions: { maxPayload: MAX_WS_MESSAGE },
    resolve: async (request: Request) => {
      ;(request as { context?: object }).context = { upgrade: true }
      const res = await app.fetch(request)
      const hooks = getWebSocketHooks(request)
      res.body?.cancel().catch(() => {})
      return hooks ?? { upgrade: () => text('not found', 404) }
    },
  })
}
