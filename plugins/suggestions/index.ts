import type { PaneProcessInfo } from '../../lib/herdr/api.ts'
import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { readGitContext, type GitContext } from '../../lib/git/status.ts'
import { reachableHost, directUrl, type HostListener } from '../../lib/ports/index.ts'
import { splitAddr } from '../../core/config.ts'
import { createHostCheck } from '../../core/host-check.ts'
import { buildSuggestions, type Suggestion } from './rules.ts'
import { createRelayHub, type RelayHub } from './relay.ts'
import { createCache, type Cache } from '../../lib/cache.ts'

/**
 * Context actions for a pane.
 *   GET /suggestions?pane=   {pane, suggestions: [{kind, performer, label, detail, action, params,
 *                            rank}]}: at most 3, rank descending; cached 6 s per pane over the
 *                            host-wide port scan (cached 5 s). 404 unknown pane.
 * A loopback-only dev server is offered through a relay on a bridge-owned port (plugins/suggestions/
 * relay.ts; each answer carries a fresh one-time token), or a `show_note` when no relay can start.
 */

const PANE_TTL_MS = 6000
/** Stands in for a relay URL in cached answers; every response mints a fresh one-time URL. */
const RELAY_MARK = 'relay-port:'

interface PaneFacts {
  cwd: string
  atPrompt: boolean
}

function factsOf(info: Partial<PaneProcessInfo>, agentCwd: string | undefined, paneCwd: string | undefined): PaneFacts {
  const fg = info.foreground_processes ?? []
  const leader = fg.find((p) => p.pid === info.foreground_process_group_id)
  const cwd = agentCwd || leader?.cwd || fg.find((p) => p.cwd)?.cwd || paneCwd || ''
  return { cwd, atPrompt: typeof info.shell_pid === 'number' && info.shell_pid === info.foreground_process_group_id }
}

interface SuggestionsState {
  hub: RelayHub
  /** Answers per pane and host, for PANE_TTL_MS. */
  answers: Cache<string, Promise<Suggestion[]>>
}
const route = defineBridgeRoute.with<SuggestionsState>()

async function compute(ctx: PluginContext, hub: RelayHub, paneId: string, host: string): Promise<Suggestion[]> {
  const ref = await ctx.herdr.resolve(paneId).catch((err) => {
    if (err instanceof HerdrError && err.notFound) fail(404, `no such pane: ${paneId}`)
    throw err
  })
  let info: Partial<PaneProcessInfo>
  try {
    info = (await ctx.herdr.call<{ process_info?: PaneProcessInfo }>(ref.session, 'pane.process_info', { pane_id: ref.id })).process_info ?? {}
  } catch (err) {
    if (err instanceof HerdrError && err.notFound) fail(404, `no such pane: ${paneId}`)
    throw err
  }
  const agent = await ctx.herdr.getAgent(ref.qualified).catch(() => null)
  const hasAgent = !!agent?.agent.agent
  const pane = hasAgent ? undefined : await ctx.herdr.getPane(ref.qualified).catch(() => null)
  const facts = factsOf(info, agent?.agent.cwd, pane?.pane.foreground_cwd || pane?.pane.cwd)

  const [listeners, git] = await Promise.all([
    ctx.services.portScanner
      .scan()
      .then((all) => all.filter((l) => l.pane === ref.qualified))
      .catch((): HostListener[] => []), // a failed scan is not an error
    (hasAgent || facts.atPrompt) && facts.cwd ? readGitContext(facts.cwd, { env: ctx.env }).catch((): GitContext | undefined => undefined) : Promise.resolve(undefined),
  ])
  const relayed = new Set<number>()
  for (const l of listeners.filter((x) => x.loopback).slice(0, 2)) if (await hub.urlFor(l, host)) relayed.add(l.port)
  return buildSuggestions({
    pane: ref.qualified,
    hasAgent,
    atPrompt: facts.atPrompt,
    git,
    listeners,
    urlOf: (l) => directUrl(l, host),
    relayOf: (l) => (relayed.has(l.port) ? `${RELAY_MARK}${l.port}` : undefined),
  })
}

/** Replaces relay marks with fresh one-time URLs; a relay that closed meanwhile is reopened. */
async function withRelayUrls(hub: RelayHub, list: Suggestion[], host: string): Promise<Suggestion[]> {
  const out: Suggestion[] = []
  for (const s of list) {
    if (!s.params.url?.startsWith(RELAY_MARK)) {
      out.push(s)
      continue
    }
    const port = Number(s.params.url.slice(RELAY_MARK.length))
    const url = await hub.urlFor({ bind: '127.0.0.1', port }, host)
    if (url) out.push({ ...s, params: { ...s.params, url } })
  }
  return out
}

export default defineBridgePlugin({
  name: 'suggestions',
  // The host's listeners come from the ports plugin's scanner (one scan cache for both routes).
  uses: ['portScanner'],
  setup: (ctx): SuggestionsState => ({
    hub: createRelayHub({ listenHost: listenHostOf(ctx.config.transport.addr), now: ctx.now, log: ctx.log, limits: ctx.limits, hosts: createHostCheck(ctx.config) }),
    answers: createCache({ max: 1000, ttlMs: PANE_TTL_MS, now: ctx.now }),
  }),
  dispose: ({ hub }) => hub.close(),
  routes: [
    route({
      method: 'GET',
      path: '/suggestions',
      auth: 'device',
      describe: 'Context actions for a pane (at most three)',
      response: v.object({
        pane: v.string(),
        suggestions: v.pipe(
          v.array(
            v.object({
              kind: v.picklist(['dev_server', 'git_conflict', 'git_dirty', 'create_pr', 'dev_server_local', 'shell_idle']),
              performer: v.picklist(['app', 'agent']),
              label: v.string(),
              detail: v.string(),
              action: v.picklist(['open_url', 'open_diff', 'show_note', 'start_agent', 'prompt_agent']),
              params: v.record(v.string(), v.string()),
              rank: v.pipe(v.number(), v.integer()),
            }),
          ),
          v.maxLength(3),
        ),
      }),
      query: v.object({ pane: v.pipe(v.string(), v.nonEmpty()) }),
      invalid: 'missing pane',
      async handler({ query, ctx, event, state: { hub, answers } }) {
        const host = reachableHost(event.req.headers.get('host'), ctx)
        const key = `${query.pane}\0${host}`
        const value = answers.get(key) ?? answers.set(key, compute(ctx, hub, query.pane, host))
        return { pane: query.pane, suggestions: await withRelayUrls(hub, await value, host) }
      },
    }),
  ],
})

/** Relays listen where the bridge listens, so whoever reaches the bridge reaches them. */
function listenHostOf(addr: string): string {
  try {
    return splitAddr(addr).host
  } catch {
    return '127.0.0.1'
  }
}
