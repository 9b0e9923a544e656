import type { PluginContext, PluginDef, PluginEntry, RouteDef, WsRouteDef } from './plugin.ts'

export interface MountedRoute extends RouteDef {
  plugin: string
}
export interface MountedWs extends WsRouteDef {
  plugin: string
}

export interface LoadedPlugins {
  plugins: { def: PluginDef; options: unknown }[]
  /** path → method → route */
  routes: Map<string, Map<string, MountedRoute>>
  websockets: Map<string, MountedWs>
}

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

/** Runs each plugin's setup in order; returns the disposers in reverse order. */
export async function setupPlugins(loaded: LoadedPlugins, ctxFor: (plugin: string) => PluginContext): Promise<(() => void | Promise<void>)[]> {
  const disposers: (() => void | Promise<void>)[] = []
  for (const { def, options } of loaded.plugins) {
    const ctx = ctxFor(def.name)
    for (const k of def.agentKinds ?? []) ctx.agentKinds.register(k, def.name)
    for (const s of def.subscribe ?? []) {
      disposers.push(
        ctx.bus.subscribe({
          name: `${def.name}:${s.source ?? '*'}:${s.type ?? '*'}`,
          limit: 10_000,
          deliver: (ev) => {
            if ((s.source && s.source !== ev.source) || (s.type && s.type !== ev.type)) return
            return s.handler(ev, ctx)
          },
          onLag: () => ctx.log.warn(`bus subscriber ${s.source ?? '*'}/${s.type ?? '*'} fell behind and was dropped`),
        }),
      )
    }
    const d = await def.setup?.(ctx, options)
    if (typeof d === 'function') disposers.push(d)
  }
  return disposers.reverse()
}
