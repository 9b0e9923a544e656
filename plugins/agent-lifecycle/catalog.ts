import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { createCache, type Cache } from '../../lib/cache.ts'
import type { PluginContext } from '../../core/plugin.ts'

/** Kinds from `herdr agent start --help`: the `[possible values: a, b]` list after `--kind`. */
export function parseStartHelp(text: string): string[] {
  // The option's own line (`  -k, --kind <KIND>`), not the usage line that mentions it.
  const def = /^[ \t]*(?:-\w,[ \t]*)?--kind\b/m.exec(text)
  const at = def ? def.index : text.indexOf('--kind')
  if (at < 0) return []
  // Stop at the next option so its value list is never taken for ours.
  const rest = text.slice(at)
  const next = /\n[ \t]*-/.exec(rest)
  const m = /\[possible values:\s*([^\]]*)\]/.exec(next ? rest.slice(0, next.index) : rest)
  return m ? splitKinds(m[1], ',') : []
}

/** Kinds from bare `herdr agent`: a `kinds: a|b|c` line. */
export function parseAgentUsage(text: string): string[] {
  const m = /^\s*kinds:\s*(.+)$/im.exec(text)
  return m ? splitKinds(m[1], '|') : []
}

function splitKinds(list: string, sep: string): string[] {
  return [
    ...new Set(
      list
        .split(sep)
        .map((k) => k.trim())
        .filter((k) => /^[a-z0-9][a-z0-9_-]*$/i.test(k)),
    ),
  ]
}

/** The first executable named `name` on `PATH`, or ''. */
export function findOnPath(name: string, pathVar: string | undefined): string {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue
    const p = join(dir, name)
    try {
      if (!statSync(p).isFile()) continue
      accessSync(p, constants.X_OK)
      return p
    } catch {}
  }
  return ''
}

export interface AvailableAgent {
  kind: string
  path: string
  state_reporting: boolean
}

const CATALOG_TTL_MS = 60_000

/** The plugin's cache of herdr's kind catalog: one per bridge, made at setup (the plugin's state). */
export type KindCatalog = Cache<'kinds', string[]>

export const createKindCatalog = (ctx: PluginContext): KindCatalog => createCache({ max: 1, ttlMs: CATALOG_TTL_MS, now: ctx.now })

/** herdr's kind catalog (CLI help text, parsed whatever the exit code), cached for a minute. */
export async function knownKinds(ctx: PluginContext, cache: KindCatalog): Promise<string[]> {
  const hit = cache.get('kinds')
  if (hit) return hit
  const run = async (args: string[]) => {
    try {
      const r = await ctx.exec(ctx.config.herdr_bin, args, { timeoutMs: 30_000, env: ctx.env })
      return r.stdout + '\n' + r.stderr
    } catch {
      return ''
    }
  }
  let kinds = parseStartHelp(await run(['agent', 'start', '--help']))
  if (!kinds.length) kinds = parseAgentUsage(await run(['agent']))
  if (kinds.length) cache.set('kinds', kinds)
  return kinds
}

/** Kinds herdr reads the status of (`server.agent_manifests`); empty when the call fails. */
export async function stateReportingKinds(ctx: PluginContext): Promise<Set<string>> {
  try {
    const r = await ctx.herdr.call<{ manifests?: { agent?: string }[] }>('default', 'server.agent_manifests', {}, { timeoutMs: 5000 })
    return new Set((r.manifests ?? []).map((m) => m.agent).filter((a): a is string => typeof a === 'string'))
  } catch {
    return new Set()
  }
}

export async function availableAgents(ctx: PluginContext, cache: KindCatalog): Promise<{ agents: AvailableAgent[]; known_kinds: string[]; discovery: string }> {
  const [kinds, reporting] = await Promise.all([knownKinds(ctx, cache), stateReportingKinds(ctx)])
  const agents: AvailableAgent[] = []
  for (const kind of kinds) {
    const path = findOnPath(kind, ctx.env.PATH)
    if (path) agents.push({ kind, path, state_reporting: reporting.has(kind) })
  }
  return { agents, known_kinds: kinds, discovery: 'herdr agent kinds + PATH lookup' }
}
