/**
 * herdr-bridge as a package: what a user config (`bridge serve --config <file>`) and an
 * out-of-tree plugin or agent kind import. See docs/agent-kinds.md.
 *
 *   import { defineConfig, defaultPlugins, defineAgentKind, definePlugin } from 'herdr-bridge'
 */
export { defineConfig, type BridgeUserConfig } from './core/plugin.ts'
export {
  defineBridgePlugin,
  defineBridgePlugin as definePlugin,
  defineBridgeRoute,
  defineBridgeWebSocket,
  type PluginDef,
  type PluginEntry,
  type PluginContext,
  type RouteDef,
  type AnyRouteDef,
  type AnyWsRouteDef,
  type WsRouteDef,
} from './core/plugin.ts'
export { defineNotifierPlugin, type Notifier, type NotifierPluginDef } from './core/notify/notifier.ts'
export type { ChannelStatus } from './core/notify/channels.ts'
export type { AlertEvent, DismissEvent, Delivery } from './lib/notify/events.ts'
export { pluginConfig, type PluginConfigSpec } from './core/plugin-config.ts'
export type { Services } from './core/services.ts'
export { defaultPlugins } from './bridge.config.ts'
export * from './lib/kit.ts'
