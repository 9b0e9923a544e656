import type { LoadedPlugins, MountedRoute, MountedWs, PluginContext, PluginDef, PluginEntry } from './plugin.ts'
import { orderByServices, servicesFor, type Services } from './services.ts'

export type { LoadedPlugins, MountedRoute, MountedWs }

/**
 * Reads the manifests of the configured plugins. A route (or WebSocket path, or plugin name)
 * claimed twice is a start-up error naming both owners.
 */
export function loadPlugins(entries: PluginEntry[]): LoadedPlugins {
  const plugins = entries.map((e) => (Array.isArray(e) ? { def: e[0], options: e[1] } : { def: e, options: undefined }))
  const names = new Map<string, true>()
  const routes = new Map<string, Map<string, MountedRoute>>()
  const websockets = new Map<string, MountedWs>()
  const owner = new Map<string, string>()
  const claim = (key: string, plugin: string) => {
    const prev = owner.get(key)
    if (prev) throw new Error(`${key} is claimed by both plugin ${prev} and plugin ${plugin}`)
    owner.set(key, plugin)
  }
  for (const { def } of plugins) {
    if (names.has(def.name)) throw new Error(`two plugins are named ${def.name}`)
    names.set(def.name, true)
    for (const r of def.routes ?? []) {
      claim(`route ${r.method} ${r.path}`, def.name)
      if (websockets.has(r.path) && r.method === 'GET') claim(`route GET ${r.path} (WebSocket)`, def.name)
      let byMethod = routes.get(r.path)
      if (!byMethod) routes.set(r.path, (byMethod = new Map()))
      byMethod.set(r.method, { ...r, plugin: def.name })
    }
    for (const w of def.websockets ?? []) {
      claim(`websocket ${w.path}`, def.name)
      if (routes.get(w.path)?.has('GET')) throw new Error(`GET ${w.path} is claimed by both plugin ${routes.get(w.path)!.get('GET')!.plugin} and plugin ${def.name} (WebSocket)`)
      websockets.set(w.path, { ...w, plugin: def.name })
    }
  }
  return { plugins, routes, websockets }
}

/** A plugin once set up: its manifest, its context and the state its `setup` returned. */
export interface RunningPlugin<S = unknown> {
  def: PluginDef<never, S>
  ctx: PluginContext
  state: S
}

/**
 * Runs each plugin's setup, providers of a service before its users (core/services.ts), then
 * opens its manifest's bus subscriptions with the state it returned and publishes the services it
 * provides. `services` holds the core's own and receives the plugins'. Returns the running
 * plugins by name and the shutdown steps in reverse order.
 */
export async function setupPlugins(
  loaded: LoadedPlugins,
  ctxFor: (plugin: string) => PluginContext,
  services: Partial<Services> = {},
): Promise<{ running: Map<string, RunningPlugin>; disposers: (() => void | Promise<void>)[] }> {
  const running = new Map<string, RunningPlugin>()
  const disposers: (() => void | Promise<void>)[] = []
  const order = orderByServices(
    loaded.plugins.map((p) => ({ ...p, name: p.def.name, provides: p.def.provides, uses: p.def.uses })),
    Object.keys(services),
  )
  for (const { def, options } of order) {
    const declared = [...(def.uses ?? []), ...Object.keys(def.provides ?? {})]
    const ctx: PluginContext = { ...ctxFor(def.name), services: servicesFor(def.name, declared, services) }
    for (const k of def.agentKinds ?? []) ctx.agentKinds.register(k, def.name)
    const state = await def.setup?.(ctx, options)
    running.set(def.name, { def, ctx, state })
    if (def.dispose) disposers.push(() => def.dispose!(state, ctx))
    for (const [name, from] of Object.entries(def.provides ?? {})) (services as Record<string, unknown>)[name] = (from as (s: unknown) => unknown)(state)
    for (const s of def.subscribe ?? []) {
      const types = s.type === undefined ? undefined : new Set([s.type].flat())
      const label = `${def.name} (${s.source ?? '*'}/${[...(types ?? ['*'])].join(',')})`
      disposers.push(
        ctx.bus.subscribe({
          name: label,
          limit: s.limit ?? 10_000,
          lag: s.lag,
          deliver: (ev) => {
            if ((s.source && s.source !== ev.source) || (types && !types.has(ev.type))) return
            return s.handler(ev, { ctx, state })
          },
          onLag: (dropped) =>
            s.lag === 'drop-oldest'
              ? ctx.log.warn(`bus subscriber ${label} fell behind; ${dropped} oldest event(s) skipped`)
              : ctx.log.warn(`bus subscriber ${label} fell behind and was dropped`),
        }),
      )
    }
  }
  return { running, disposers: disposers.reverse() }
}
