import type { PluginContext } from './plugin.ts'
import { HerdrError, qualify, type AgentInfo } from './herdr/index.ts'
import { git } from './exec.ts'

/** Rank of each status in the attention order of spec 1 §2.1; anything else ranks 4. */
const ATTENTION: Record<string, number> = { blocked: 0, done: 1, working: 2, idle: 3, unknown: 4 }

export function attentionRank(status: unknown): number {
  return typeof status === 'string' && status in ATTENTION ? ATTENTION[status] : 4
}

export interface RankedAgent extends AgentInfo {
  attention_rank: number
  recency_rank: number
  branch: string
  session: string
  last_activity_ts?: number
  subagents?: { total: number; running: number }
}

/**
 * recency_rank: dated agents newest first, then undated with a seq by highest seq, then the rest;
 * ties fall to pane_id. Distinct ranks 0..N-1, assigned in place.
 */
export function assignRecency(agents: RankedAgent[]): void {
  const tier = (a: RankedAgent) => (typeof a.last_activity_ts === 'number' ? 0 : typeof a.state_change_seq === 'number' ? 1 : 2)
  const order = [...agents].sort((a, b) => {
    const ta = tier(a)
    const tb = tier(b)
    if (ta !== tb) return ta - tb
    if (ta === 0 && a.last_activity_ts !== b.last_activity_ts) return b.last_activity_ts! - a.last_activity_ts!
    if (ta === 1 && a.state_change_seq !== b.state_change_seq) return b.state_change_seq! - a.state_change_seq!
    return a.pane_id < b.pane_id ? -1 : a.pane_id > b.pane_id ? 1 : 0
  })
  order.forEach((a, i) => (a.recency_rank = i))
}

export function sortAgents(agents: RankedAgent[]): RankedAgent[] {
  return agents.sort((a, b) => a.attention_rank - b.attention_rank || a.recency_rank - b.recency_rank)
}

const BRANCH_TTL_MS = 2000
const branchCache = new Map<string, { at: number; value: Promise<string> }>()

/** The branch checked out in `dir`; '' when not a work tree or detached. Cached briefly. */
export function branchOf(dir: string | undefined, now = Date.now()): Promise<string> {
  if (!dir) return Promise.resolve('')
  const hit = branchCache.get(dir)
  if (hit && now - hit.at < BRANCH_TTL_MS) return hit.value
  const value = git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true, timeoutMs: 5000 })
    .then((r) => (r.exitCode === 0 ? r.stdout.trim() : ''))
    .catch(() => '')
  branchCache.set(dir, { at: now, value })
  if (branchCache.size > 2000) branchCache.clear()
  return value
}

const ARRAYS = ['agents', 'panes', 'tabs', 'workspaces', 'layouts'] as const

/**
 * The merged snapshot of every session: arrays concatenated with ids qualified and a `session`
 * label on each element, scalars from the default session, plus the agent fields the bridge
 * adds. A failing session is skipped; all failing is the first error.
 */
export async function buildSnapshot(ctx: Pick<PluginContext, 'herdr' | 'agentKinds' | 'log'>, opts: { home?: string } = {}): Promise<Record<string, any>> {
  const sessions = ctx.herdr.sessions()
  const results = await Promise.allSettled(sessions.map((s) => ctx.herdr.call<{ snapshot: Record<string, any> }>(s, 'session.snapshot', {})))
  const merged: Record<string, any> = {}
  const okSessions: string[] = []
  let firstError: unknown
  results.forEach((r, i) => {
    const session = sessions[i]
    if (r.status === 'rejected') {
      firstError ??= r.reason
      return
    }
    okSessions.push(session)
    const snap = qualify(session, r.value.snapshot ?? {})
    for (const [k, v] of Object.entries(snap)) {
      if ((ARRAYS as readonly string[]).includes(k) && Array.isArray(v)) {
        merged[k] = [...(merged[k] ?? []), ...v.map((el: any) => ({ ...el, session }))]
      } else if (!(k in merged) || i === 0) merged[k] = v
    }
  })
  if (!okSessions.length) throw firstError ?? new HerdrError('unreachable', 'no herdr session is reachable')
  for (const k of ARRAYS) merged[k] ??= []
  merged.sessions = okSessions
  merged.agents = await enrichAgents(ctx, merged.agents, opts.home)
  return merged
}

export async function enrichAgents(ctx: Pick<PluginContext, 'agentKinds'>, raw: AgentInfo[], home = process.env.HOME ?? ''): Promise<RankedAgent[]> {
  const agents = await Promise.all(
    raw.map(async (a) => {
      const out = { ...a } as RankedAgent
      const t = ctx.agentKinds.get(a.agent)?.transcript
      const [branch, last, subs] = await Promise.all([
        branchOf(a.foreground_cwd || a.cwd),
        t?.lastActivity?.(a, home).catch(() => undefined),
        t?.subagentCounts?.(a, home).catch(() => undefined),
      ])
      out.branch = branch
      out.attention_rank = attentionRank(a.agent_status)
      if (typeof last === 'number' && last > 0) out.last_activity_ts = last
      if (subs && subs.total > 0) out.subagents = subs
      return out
    }),
  )
  assignRecency(agents)
  return sortAgents(agents)
}
