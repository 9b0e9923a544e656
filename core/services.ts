/**
 * The services plugins share. A plugin declares what it provides (`provides: { liveSnapshot:
 * (state) => state.live }`) and what it uses (`uses: ['liveSnapshot']`); the loader sets up
 * providers first, refuses a service nobody provides or two plugins provide, and hands each plugin
 * `ctx.services` with exactly the services it declared. This is the only way state crosses
 * plugins: no module-level maps keyed by the bus or the config.
 *
 * A third-party plugin adds a service of its own by declaring it into this interface:
 *
 *   declare module 'herdr-bridge' { interface Services { myThing: MyThing } }
 */
import type { Encoding } from '../lib/http/compress.ts'
import type { PortScanner } from '../lib/ports/index.ts'
import type { ChannelRegistry } from './notify/channels.ts'

export interface Services {
  /** The live model of every session (plugins/snapshot): `/snapshot` and the `/events` snapshot frame. */
  liveSnapshot: LiveSnapshot
  /** The host's HTTP listeners, one scan cache per bridge (plugins/ports): `/ports` and `/suggestions`. */
  portScanner: PortScanner
  /** The notification channels running, and delivery over them (core): alerts, `/admin/status`, `bridge doctor`. */
  notifyChannels: ChannelRegistry
}

export type ServiceName = keyof Services

/** A plugin list that cannot start (a service missing or doubled, a plugin's settings wrong): one line, shown as is. */
export class PluginSetupError extends Error {}

/** One revision of the `/snapshot` answer: shared by every read of it, so never mutated. */
export interface SnapshotBody {
  /** `{"result":{"snapshot":…}}`, UTF-8. */
  json: Buffer
  /** The same body compressed, made on first ask. */
  encoded(encoding: Encoding): Buffer
}

export interface LiveSnapshot {
  /** The merged, enriched snapshot (same shape as `buildSnapshot`); shared, read-only. */
  get(): Promise<Record<string, unknown>>
  /** The `/snapshot` answer of the current revision. */
  body(): Promise<SnapshotBody>
  stop(): void
}

/**
 * Orders plugins so that each one's setup runs after the setup of every plugin whose services it
 * uses; otherwise the configured order stands. Throws one line for a service used but provided by
 * nobody, provided twice, or two plugins that wait on each other.
 */
export function orderByServices<P extends { name: string; provides?: object; uses?: readonly string[] }>(plugins: P[], core: readonly string[]): P[] {
  const provider = new Map<string, string>(core.map((s) => [s, 'the core']))
  for (const p of plugins)
    for (const s of Object.keys(p.provides ?? {})) {
      const prev = provider.get(s)
      if (prev) throw new PluginSetupError(`service ${s} is provided by both ${prev === 'the core' ? prev : `plugin ${prev}`} and plugin ${p.name}`)
      provider.set(s, p.name)
    }
  for (const p of plugins)
    for (const s of p.uses ?? []) {
      if (!provider.has(s)) throw new PluginSetupError(`plugin ${p.name} uses service ${s}, which no loaded plugin provides`)
    }
  const done = new Set<string>(['the core'])
  const out: P[] = []
  const left = [...plugins]
  while (left.length) {
    const i = left.findIndex((p) => (p.uses ?? []).every((s) => provider.get(s) === p.name || done.has(provider.get(s)!)))
    if (i < 0) throw new PluginSetupError(`plugins ${left.map((p) => p.name).join(', ')} wait on each other's services`)
    const [p] = left.splice(i, 1)
    out.push(p)
    done.add(p.name)
  }
  return out
}

/**
 * The `ctx.services` a plugin sees: the services it declared (used or provided) and nothing else,
 * so a forgotten `uses` is a clear error at the first read instead of an undefined.
 */
export function servicesFor(plugin: string, declared: readonly string[], all: Partial<Services>): Services {
  const allowed = new Set(declared)
  return new Proxy({} as Services, {
    get(_t, key) {
      if (typeof key !== 'string') return undefined
      if (!allowed.has(key)) throw new Error(`plugin ${plugin} reads service ${key} without declaring it in uses`)
      const s = (all as Record<string, unknown>)[key]
      if (s === undefined) throw new Error(`service ${key} is not ready for plugin ${plugin} (its provider's setup has not run)`)
      return s
    },
    has: (_t, key) => typeof key === 'string' && allowed.has(key),
    ownKeys: () => [...allowed],
    getOwnPropertyDescriptor: (_t, key) =>
      typeof key === 'string' && allowed.has(key) ? { enumerable: true, configurable: true, value: (all as Record<string, unknown>)[key] } : undefined,
  })
}
