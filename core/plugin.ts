import type { H3Event } from 'h3'
import type { Peer, Message } from 'crossws'
import type { ConsolaInstance } from 'consola'
import type { Storage } from 'unstorage'
import type { GenericSchema } from 'valibot'
import type { BridgeConfig, ConfigDefaults } from './config.ts'
import type { Bus, BusEvent, LagPolicy } from './bus.ts'
import type { Herdr } from './herdr/index.ts'
import type { DeviceStore } from '../storage/devices.ts'
import type { AgentKindRegistry, AgentKind } from '../lib/agent-kinds.ts'
import type { Exec } from '../lib/exec.ts'
import type { ServerLimits } from './limits.ts'
import type { ServiceName, Services } from './services.ts'
import type { Role } from './roles.ts'

export type AuthLevel = 'device' | 'admin' | 'none' | 'pairing'

export { ROLES, type Role } from './roles.ts'
export type ErrorStyle = 'text' | 'json'

/** Who made the request, once the core has checked the credentials. */
export interface AuthInfo {
  kind: 'admin' | 'device' | 'none'
  deviceId?: string
  /** The device's role (devices only; the admin token may call everything). */
  role?: Role
}

/** What a handler receives: the parsed query and body, the caller, and its plugin's state. */
export interface RouteInput<Q = unknown, B = unknown, S = unknown> {
  event: H3Event
  query: Q
  body: B
  auth: AuthInfo
  ctx: PluginContext
  /** What the plugin's `setup` returned. */
  state: S
}

export interface RouteDef<Q = unknown, B = unknown, S = unknown> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  auth: AuthLevel
  /** Accept `?token=` in place of the Authorization header (WebSocket-friendly routes). */
  queryToken?: boolean
  /**
   * The least device role that may call the route (403 below it, before any work). GET routes
   * default to `viewer`, every other method to `default`: a write names `viewer` only when a
   * watching device may do it too (mute, its own push subscription).
   */
  role?: Role
  /** Body style of error responses for this route; plain text by default. */
  errors?: ErrorStyle
  query?: GenericSchema<unknown, Q>
  body?: GenericSchema<unknown, B>
  /** `raw` leaves the body unread for handlers that stream it (attachments). */
  bodyType?: 'json' | 'raw'
  /** Fixed message for a request that fails validation, when clients rely on one (`want ?pane=<pane_id>`). */
  invalid?: string
  /** Short description, for the route listing and the API document. */
  describe?: string
  /**
   * Shape of the 200 body, for the API document (`GET /openapi.json`). Every route documents
   * one: a valibot schema for JSON, or a media type for anything else.
   */
  response?: GenericSchema | { type: string; description?: string }
  /**
   * The audit log (docs/security.md): non-GET routes are written unless this is false (pure
   * reads over POST). A function names the pane or workspace the request targets, and may add
   * the herdr method it forwards or the length of the text it types.
   */
  audit?: false | ((input: { query: Q; body: B }) => AuditFields | undefined)
  /** Returns (or resolves to) the answer: a Response, or a value sent as JSON. */
  handler: (input: RouteInput<Q, B, S>) => unknown
}

/** What a route's audit hook adds to its audit line (lengths only, never the text). */
export interface AuditFields {
  pane?: string
  method?: string
  text_length?: number
}

export interface WsContext<S = unknown, A = unknown> {
  auth: AuthInfo
  url: URL
  ctx: PluginContext
  /** What the plugin's `setup` returned. */
  state: S
  /** What `accept` returned. */
  accepted: A
  /** Set by the core when the device was revoked before the socket opened. */
  revoked?: boolean
}

export interface WsRouteDef<S = unknown, A = unknown, Q = unknown> {
  path: string
  auth: AuthLevel
  queryToken?: boolean
  /**
   * The least device role that may open the socket (403 before the upgrade); `viewer` when absent.
   * A function reads the request's query, for a socket that writes only in one mode (/attach control).
   */
  role?: Role | ((query: URLSearchParams) => Role)
  /** Negotiate `permessage-deflate` (large JSON frames); terminal byte streams leave it off. */
  deflate?: boolean
  describe?: string
  /** Query parameters, checked after auth; a failure refuses the upgrade with 400. Listed in the API document. */
  query?: GenericSchema<unknown, Q>
  /** Frame shapes, for the API document. */
  doc?: { serverFrames?: Record<string, string>; clientFrames?: Record<string, string> }
  /**
   * Runs after auth and query validation, before the upgrade and also for a plain GET on the
   * path: return a Response to refuse (404 unknown pane, …), or a value handed to the hooks.
   */
  accept?: (input: { request: Request; url: URL; query: Q; auth: AuthInfo; ctx: PluginContext; state: S }) => Promise<A | Response> | A | Response
  open: (peer: Peer, ws: WsContext<S, A>) => void | Promise<void>
  message?: (peer: Peer, message: Message, ws: WsContext<S, A>) => void | Promise<void>
  close?: (peer: Peer, ws: WsContext<S, A>, details: { code?: number; reason?: string }) => void | Promise<void>
}

/**
 * A bus subscription the core opens after `setup` and closes at shutdown. Each has its own
 * queue of `limit` events (default 10,000); `lag` says what happens when it is full:
 * `unsubscribe` (default) drops the subscriber and warns once, `drop-oldest` discards the
 * oldest queued event and keeps going (for notifiers, where a late alert beats none).
 */
export interface BusSubscription<S = unknown> {
  source?: BusEvent['source']
  /** One event type or several; all when absent. */
  type?: string | string[]
  limit?: number
  lag?: LagPolicy
  handler: (event: BusEvent, input: { ctx: PluginContext; state: S }) => void | Promise<void>
}

export interface PluginDef<O = unknown, S = unknown> {
  name: string
  /** Start-up work; what it returns is the plugin's state, handed to its routes, sockets and subscriptions. */
  setup?: (ctx: PluginContext, options: O) => S | Promise<S>
  /** Shutdown work, given the state `setup` returned. */
  dispose?: (state: S, ctx: PluginContext) => void | Promise<void>
  routes?: AnyRouteDef<S>[]
  websockets?: AnyWsRouteDef<S>[]
  subscribe?: BusSubscription<S>[]
  agentKinds?: AgentKind[]
  /**
   * Services this plugin offers others (core/services.ts), each read from its state once `setup`
   * ran: `provides: { liveSnapshot: (state) => state.live }`.
   */
  provides?: { [K in ServiceName]?: (state: S) => Services[K] }
  /** Services this plugin reads through `ctx.services`; their providers are set up first. */
  uses?: ServiceName[]
}

/*
 * The registry's variance holes. A route's query and body types (a socket's accepted value too)
 * sit in its handler's parameter, and a plugin's options and state in `setup`/`dispose`: a list
 * of routes or plugins of different shapes has no common type short of `any` there. Each route is
 * typed where it is written (`defineBridgeRoute`), and the core only hands it what its own schemas
 * produced.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: heterogeneous route list
export type AnyRouteDef<S = unknown> = RouteDef<any, any, S>
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: heterogeneous socket list
export type AnyWsRouteDef<S = unknown> = WsRouteDef<S, any, any>
/** Any plugin, whatever its options and state. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: heterogeneous plugin list
export type AnyPlugin = PluginDef<any, any>

export interface MountedRoute extends AnyRouteDef<unknown> {
  plugin: string
}
export interface MountedWs extends AnyWsRouteDef<unknown> {
  plugin: string
}

export interface LoadedPlugins {
  plugins: { def: AnyPlugin; options: unknown }[]
  /** path → method → route */
  routes: Map<string, Map<string, MountedRoute>>
  websockets: Map<string, MountedWs>
}

export interface Sockets {
  /** Closes every open WebSocket authenticated as this device. */
  closeDevice(deviceId: string, code?: number, reason?: string): void
}

/** What the core knows of the running server, for the plugins that describe it. */
export interface ServerInfo {
  /** Every mounted route and WebSocket (the API document is built from it). */
  readonly routes: LoadedPlugins
  /** The URL the server listens on, once it does. */
  url?: string
}

/** Everything a plugin may use. Plugins never import each other. */
export interface PluginContext {
  config: BridgeConfig
  log: ConsolaInstance
  herdr: Herdr
  bus: Bus
  storage: Storage
  devices: DeviceStore
  agentKinds: AgentKindRegistry
  exec: Exec
  /** Deadlines and connection caps; body readers use `body_idle_ms`. */
  limits: ServerLimits
  sockets: Sockets
  server: ServerInfo
  /** Wall clock, injectable in tests. */
  now: () => number
  /** The bridge's environment and HOME (tests give the bridge its own). Read these, not process.env. */
  env: NodeJS.ProcessEnv
  home: string
  /** The services the plugin declared in `uses` (and those it provides), typed (core/services.ts). */
  services: Services
}

/**
 * A plugin. Its state type comes from `setup`; routes that use it are written with
 * `defineBridgeRoute.with<State>()` so the handler sees it typed.
 */
export function defineBridgePlugin<O = unknown, S = unknown>(def: PluginDef<O, S>): PluginDef<O, S> {
  return def
}

export function defineBridgeRoute<Q = unknown, B = unknown>(def: RouteDef<Q, B, unknown>): RouteDef<Q, B, unknown> {
  return def
}
/** `defineBridgeRoute` for routes that read their plugin's state of type S. */
defineBridgeRoute.with =
  <S>() =>
  <Q = unknown, B = unknown>(def: RouteDef<Q, B, S>): RouteDef<Q, B, S> =>
    def

export function defineBridgeWebSocket<A = unknown, Q = unknown>(def: WsRouteDef<unknown, A, Q>): WsRouteDef<unknown, A, Q> {
  return def
}
/** `defineBridgeWebSocket` for sockets that read their plugin's state of type S. */
defineBridgeWebSocket.with =
  <S>() =>
  <A = unknown, Q = unknown>(def: WsRouteDef<S, A, Q>): WsRouteDef<S, A, Q> =>
    def

/** A plugin listed in bridge.config.ts, optionally with options: `[plugin, { … }]`. */
export type PluginEntry = AnyPlugin | [AnyPlugin, unknown]

/** What `bridge.config.ts` declares: which plugins run and their options. */
export interface BridgeUserConfig {
  plugins: PluginEntry[]
  /** Defaults for keys of the on-disk config; the on-disk file and env win. */
  defaults?: ConfigDefaults
}

export function defineConfig(config: BridgeUserConfig): BridgeUserConfig {
  return config
}
