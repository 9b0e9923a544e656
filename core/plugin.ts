import type { H3Event } from 'h3'
import type { Peer, Message } from 'crossws'
import type { ConsolaInstance } from 'consola'
import type { Storage } from 'unstorage'
import type { GenericSchema } from 'valibot'
import type { BridgeConfig } from './config.ts'
import type { Bus, BusEvent } from './bus.ts'
import type { Herdr } from './herdr/index.ts'
import type { DeviceStore } from '../storage/devices.ts'
import type { AgentKindRegistry, AgentKind } from './agent-kinds.ts'
import type { Exec } from './exec.ts'

export type AuthLevel = 'device' | 'admin' | 'none' | 'pairing'
export type ErrorStyle = 'text' | 'json'

/** Who made the request, once the core has checked the credentials. */
export interface AuthInfo {
  kind: 'admin' | 'device' | 'none'
  deviceId?: string
}

export interface RouteInput<Q = any, B = any> {
  event: H3Event
  query: Q
  body: B
  auth: AuthInfo
  ctx: PluginContext
}

export interface RouteDef<Q = any, B = any> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  auth: AuthLevel
  /** Accept `?token=` in place of the Authorization header (WebSocket-friendly routes). */
  queryToken?: boolean
  /** Body style of error responses for this route; plain text by default. */
  errors?: ErrorStyle
  query?: GenericSchema<any, Q>
  body?: GenericSchema<any, B>
  /** `raw` leaves the body unread for handlers that stream it (attachments). */
  bodyType?: 'json' | 'raw'
  /** Message for a request that fails validation, when the spec fixes one. */
  invalid?: string
  /** Short description, for the route listing and the API document. */
  describe?: string
  /**
   * Shape of the 200 body, for the API document (`GET /openapi.json`). Every route documents
   * one: a valibot schema for JSON, or a media type for anything else.
   */
  response?: GenericSchema | { type: string; description?: string }
  /** Non-GET routes are written to the audit log unless this is false (pure reads over POST). */
  audit?: boolean
  handler: (input: RouteInput<Q, B>) => unknown | Promise<unknown>
}

export interface WsContext {
  auth: AuthInfo
  url: URL
  /** What `accept` returned. */
  state: any
}

export interface WsRouteDef {
  path: string
  auth: AuthLevel
  queryToken?: boolean
  /** Negotiate `permessage-deflate` (large JSON frames); terminal byte streams leave it off. */
  deflate?: boolean
  describe?: string
  /** Query parameters and frame shapes, for the API document. */
  doc?: { query?: Record<string, string>; serverFrames?: Record<string, string>; clientFrames?: Record<string, string> }
  /**
   * Runs after auth, before the upgrade and also for a plain GET on the path: return a Response
   * to refuse (404 unknown pane, …), or a state object handed to the hooks.
   */
  accept?: (input: { request: Request; url: URL; auth: AuthInfo; ctx: PluginContext }) => Promise<unknown> | unknown
  open: (peer: Peer, ws: WsContext) => void | Promise<void>
  message?: (peer: Peer, message: Message, ws: WsContext) => void | Promise<void>
  close?: (peer: Peer, ws: WsContext, details: { code?: number; reason?: string }) => void | Promise<void>
}

export interface BusSubscription {
  source?: string
  type?: string
  handler: (event: BusEvent, ctx: PluginContext) => void | Promise<void>
}

export interface PluginDef<O = any> {
  name: string
  routes?: RouteDef[]
  websockets?: WsRouteDef[]
  subscribe?: BusSubscription[]
  agentKinds?: AgentKind[]
  setup?: (ctx: PluginContext, options: O) => void | (() => void | Promise<void>) | Promise<void | (() => void | Promise<void>)>
}

export interface Sockets {
  /** Closes every open WebSocket authenticated as this device. */
  closeDevice(deviceId: string, code?: number, reason?: string): void
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
  sockets: Sockets
  /** Wall clock, injectable in tests. */
  now: () => number
  /** The bridge's environment and HOME (tests give the bridge its own). Read these, not process.env. */
  env: NodeJS.ProcessEnv
  home: string
  /** Shared state a plugin exposes to the core (for example whether a recorder runs). */
  services: Map<string, unknown>
}

export function defineBridgePlugin<O = any>(def: PluginDef<O>): PluginDef<O> {
  return def
}

export function defineBridgeRoute<Q = any, B = any>(def: RouteDef<Q, B>): RouteDef<Q, B> {
  return def
}

export function defineBridgeWebSocket(def: WsRouteDef): WsRouteDef {
  return def
}

/** A plugin listed in bridge.config.ts, optionally with options: `[plugin, { … }]`. */
export type PluginEntry = PluginDef | [PluginDef, unknown]

export { defineAgentKind } from './agent-kinds.ts'
