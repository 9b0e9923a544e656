import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PluginContext } from '../../core/plugin.ts'
import { HerdrError, qualifyInPlace, type AgentInfo } from '../../core/herdr/index.ts'
import { runGit } from '../../lib/git/run.ts'
import { createCache } from '../../lib/cache.ts'

/** `attention_rank`: who needs a person first (blocked, then done, working, idle); anything else ranks 4. */
const ATTENTION: Record<string, number> = { blocked: 0, done: 1, working: 2, idle: 3, unknown: 4 }

export function attentionRank(status: unknown): number {
  return typeof status === 'string' && Object.hasOwn(ATTENTION, status) ? ATTENTION[status] : 4
}

export interface RankedAgent extends AgentInfo {
  attention_rank: number
  recency_rank: number
  branch: string
  session: string
  last_activity_ts?: number
  subagents?: { total: number; running: number }
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v)

/**
 * recency_rank: dated agents newest first, then undated with a seq by highest seq, then the rest;
 * ties fall to pane_id. Distinct ranks 0..N-1, assigned in place.
 */
export function assignRecency<T extends Pick<RankedAgent, 'pane_id' | 'last_activity_ts' | 'state_change_seq' | 'recency_rank'>>(agents: T[]): void {
  const tier = (a: T) => (isInt(a.last_activity_ts) ? 0 : isInt(a.state_change_seq) ? 1 : 2)
  const order = agents
    .map((a) => ({ a, t: tier(a) }))
    .sort((x, y) => {
      if (x.t !== y.t) return x.t - y.t
      const a = x.a
      const b = y.a
      if (x.t === 0 && a.last_activity_ts !== b.last_activity_ts) return b.last_activity_ts! - a.last_activity_ts!
      if (x.t === 1 && a.state_change_seq !== b.state_change_seq) return b.state_change_seq! - a.state_change_seq!
      return a.pane_id < b.pane_id ? -1 : a.pane_id > b.pane_id ? 1 : 0
    })
  order.forEach(({ a }, i) => (a.recency_rank = i))
}

/** The client-facing order: (attention_rank, recency_rank) ascending, in place. */
export function sortAgents<T extends Pick<RankedAgent, 'attention_rank' | 'recency_rank'>>(agents: T[]): T[] {
  return agents.sort((a, b) => a.attention_rank - b.attention_rank || a.recency_rank - b.recency_rank)
}

// ---------------------------------------------------------------------------------------------
// Branch of a directory. Locating the git dir costs a git process, so it is cached per directory;
// the branch itself is read from that git dir's HEAD file, which changes on every checkout, and
// is cached for a second so a burst of snapshots reads it once.

export interface BranchReaderOptions {
  now?: () => number
  /** How long a located git dir is trusted before git is asked again. */
  locateTtlMs?: number
  /** How long "not a work tree" is trusted (a directory can become a repository). */
  missTtlMs?: number
  /** How long a HEAD read is reused. */
  headTtlMs?: number
}

export type BranchReader = ((dir: string | undefined) => Promise<string>) & { clear(): void }

export function createBranchReader(opts: BranchReaderOptions = {}): BranchReader {
  const now = opts.now ?? Date.now
  const locateTtl = opts.locateTtlMs ?? 30_000
  const missTtl = opts.missTtlMs ?? 5_000
  const headTtl = opts.headTtlMs ?? 1_000
  const located = createCache<string, { at: number; gitDir?: string | null; pending?: Promise<string | null> }>({ max: 4096 })
  const heads = createCache<string, { at: number; branch: Promise<string> }>({ max: 4096 })

  const locate = (dir: string): Promise<string | null> => {
    const t = now()
    const hit = located.get(dir)
    if (hit?.pending) return hit.pending
    if (hit && t - hit.at < (hit.gitDir ? locateTtl : missTtl)) return Promise.resolve(hit.gitDir ?? null)
    const entry: { at: number; gitDir?: string | null; pending?: Promise<string | null> } = { at: t }
    entry.pending = runGit(dir, ['rev-parse', '--is-inside-work-tree', '--absolute-git-dir'])
      .then((r) => {
        const [inside, path] = r.stdout.split('\n')
        return r.exitCode === 0 && inside === 'true' && path ? path : null
      })
      .catch(() => null)
      .then((g) => {
        entry.gitDir = g
        entry.pending = undefined
        return g
      })
    located.set(dir, entry)
    return entry.pending
  }

  const readHead = (dir: string, gitDir: string): Promise<string> => {
    const t = now()
    const hit = heads.get(gitDir)
    if (hit && t - hit.at < headTtl) return hit.branch
    const branch = readFile(join(gitDir, 'HEAD'), 'utf8').then(
      async (head) => {
        const m = /^ref: refs\/heads\/(.+)$/m.exec(head.trim())
        if (m && m[1] !== '.invalid') return m[1]
        if (!head.startsWith('ref:')) return '' // a commit id: detached HEAD
        // Some other symbolic ref (or a reftable repository): ask git.
        const r = await runGit(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => null)
        return r?.exitCode === 0 ? r.stdout.trim() : ''
      },
      () => {
        // The repository moved or vanished: locate it again next time.
        located.delete(dir)
        heads.delete(gitDir)
        return ''
      },
    )
    heads.set(gitDir, { at: t, branch })
    return branch
  }

  const reader = (async (dir: string | undefined) => {
    if (!dir) return ''
    const gitDir = await locate(dir)
    return gitDir ? readHead(dir, gitDir) : ''
  }) as BranchReader
  reader.clear = () => {
    located.clear()
    heads.clear()
  }
  return reader
}

/** The branch checked out in `dir`; '' when not a work tree or detached. Shared process-wide cache. */
export const branchOf: BranchReader = createBranchReader()

// ---------------------------------------------------------------------------------------------
// Strict JSON types: a client decoding with fixed types fails on one wrong type, so the fields it
// reads are coerced to their documented type (or dropped) rather than passed through blindly.

const STRING_FIELDS = [
  'agent',
  'agent_status',
  'pane_id',
  'tab_id',
  'workspace_id',
  'terminal_id',
  'terminal_title_stripped',
  'cwd',
  'foreground_cwd',
  'label',
  'active_tab_id',
  'name',
]
const INT_FIELDS = ['state_change_seq', 'number', 'pane_count', 'tab_count', 'revision']
const OBJECT_FIELDS = ['agent_session', 'worktree', 'scroll']

export function strictTypes<T extends Record<string, unknown>>(el: T): T {
  const o = el as Record<string, unknown>
  for (const k of STRING_FIELDS) {
    const v = o[k]
    if (v === undefined || v === null || typeof v === 'string') continue
    if (typeof v === 'number' || typeof v === 'boolean') o[k] = String(v)
    else delete o[k]
  }
  for (const k of INT_FIELDS) {
    const v = o[k]
    if (v === undefined || v === null || isInt(v)) continue
    const n = typeof v === 'string' && v.trim() ? Number(v) : typeof v === 'number' ? Math.trunc(v) : NaN
    if (Number.isFinite(n)) o[k] = Math.trunc(n)
    else delete o[k]
  }
  if ('focused' in o && typeof o.focused !== 'boolean') o.focused = o.focused === true || o.focused === 'true'
  for (const k of OBJECT_FIELDS) {
    const v = o[k]
    if (v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v))) delete o[k]
  }
  return el
}

// ---------------------------------------------------------------------------------------------

const ARRAYS = ['agents', 'panes', 'tabs', 'workspaces', 'layouts'] as const
const ARRAY_SET = new Set<string>(ARRAYS)

type SnapshotCtx = Pick<PluginContext, 'herdr' | 'agentKinds'> & { home?: string; env?: NodeJS.ProcessEnv }

/** One session's `session.snapshot` as herdr sent it: read field by field, never trusted whole. */
export type SessionSnapshot = Record<string, unknown>

/**
 * A merged snapshot: herdr's five arrays joined over the sessions (elements as herdr sent them,
 * each object labelled with its session), `sessions` naming the parts, herdr's scalars from the first.
 */
export interface Snapshot {
  agents: unknown[]
  panes: unknown[]
  tabs: unknown[]
  workspaces: unknown[]
  layouts: unknown[]
  sessions: string[]
  [k: string]: unknown
}

export const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v)

/** `session.snapshot` of one session, as herdr returns it. */
export function sessionSnapshot(ctx: Pick<PluginContext, 'herdr'>, session: string): Promise<SessionSnapshot> {
  return ctx.herdr.call<{ snapshot?: unknown } | null>(session, 'session.snapshot', {}).then((r) => (isRecord(r?.snapshot) ? r.snapshot : {}))
}

/**
 * Concatenates per-session snapshots: arrays joined with ids qualified and a `session` label on
 * each element, scalars from the first session given (the default one comes first). The parts are
 * consumed: their objects are qualified and labelled in place.
 */
export function mergeSnapshots(parts: { session: string; snapshot: SessionSnapshot }[]): Snapshot {
  // Built as a plain record so `sessions` comes last in the JSON, after herdr's scalars.
  const merged: Record<string, unknown> = {}
  for (const k of ARRAYS) merged[k] = []
  for (const { session, snapshot } of parts) {
    const snap = qualifyInPlace(session, snapshot ?? {})
    for (const k in snap) {
      const v = snap[k]
      if (ARRAY_SET.has(k)) {
        if (!Array.isArray(v)) continue
        const into = merged[k] as unknown[]
        for (const el of v as unknown[]) {
          if (isRecord(el)) {
            el.session = session
            strictTypes(el)
          }
          into.push(el)
        }
      } else if (!(k in merged)) merged[k] = v
    }
  }
  merged.sessions = parts.map((p) => p.session)
  return merged as Snapshot
}

/**
 * The merged snapshot of every session plus the agent fields the bridge adds, agents in client
 * order. A failing session is skipped; when all fail, the first error is thrown.
 */
export async function buildSnapshot(ctx: SnapshotCtx, opts: { home?: string; branch?: BranchReader } = {}): Promise<Snapshot> {
  await ctx.herdr.ready?.()
  const sessions = ctx.herdr.sessions()
  const results = await Promise.allSettled(sessions.map((s) => sessionSnapshot(ctx, s)))
  const parts: { session: string; snapshot: SessionSnapshot }[] = []
  let firstError: unknown
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') parts.push({ session: sessions[i], snapshot: r.value })
    else firstError ??= r.reason
  })
  if (!parts.length) throw firstError ?? new HerdrError('unreachable', 'no herdr session is reachable')
  const merged = mergeSnapshots(parts)
  merged.agents = await enrichAgents(ctx, merged.agents, { home: opts.home ?? ctx.home, env: ctx.env, branch: opts.branch })
  return merged
}

/** The fields an agent's enrichment adds from files: its branch and what its transcript tells. */
export interface Enrichment {
  branch: string
  last_activity_ts?: number
  subagents?: { total: number; running: number }
}

type EnrichOpts = { home?: string; env?: NodeJS.ProcessEnv; branch?: BranchReader }

/** Reads one agent's enrichment (git HEAD, transcript tail and roster); never rejects. */
export async function enrichmentOf(ctx: Pick<PluginContext, 'agentKinds'>, a: AgentInfo, opts: EnrichOpts = {}): Promise<Enrichment> {
  const host = { home: opts.home ?? '', env: opts.env ?? {} }
  const reader = opts.branch ?? branchOf
  const t = ctx.agentKinds.get(a.agent)?.transcript
  const dir = a.foreground_cwd || a.cwd
  const out: Enrichment = { branch: '' }
  await Promise.all([
    typeof dir === 'string' && dir
      ? reader(dir).then(
          (b) => void (out.branch = b),
          () => {},
        )
      : undefined,
    t?.lastActivity?.(a, host).then(
      (last) => void (isInt(last) && last > 0 && (out.last_activity_ts = last)),
      () => {},
    ),
    t?.subagentCounts?.(a, host).then(
      (s) => void (s && isInt(s.total) && isInt(s.running) && s.total > 0 && (out.subagents = { total: s.total, running: s.running })),
      () => {},
    ),
  ])
  return out
}

/** Sets an agent's enrichment fields (in place), dropping the ones the enrichment lacks. */
export function applyEnrichment(a: RankedAgent, e: Enrichment): void {
  a.branch = e.branch
  if (e.last_activity_ts === undefined) delete a.last_activity_ts
  else a.last_activity_ts = e.last_activity_ts
  if (e.subagents === undefined) delete a.subagents
  else a.subagents = { ...e.subagents }
}

/** attention_rank, recency_rank and the default session on enriched agents (in place), in client order. */
export function rankAgents(agents: RankedAgent[]): RankedAgent[] {
  for (const a of agents) {
    a.attention_rank = attentionRank(a.agent_status)
    if (typeof a.session !== 'string') a.session = 'default'
  }
  assignRecency(agents)
  return sortAgents(agents)
}

/**
 * Adds branch, attention_rank, recency_rank and the transcript-derived fields to agents already
 * carrying `session` (in place), and returns them sorted. Each agent's files are read in
 * parallel; the branch reader shares one git lookup per directory.
 */
export async function enrichAgents(ctx: Pick<PluginContext, 'agentKinds'>, raw: unknown[], opts: EnrichOpts = {}): Promise<RankedAgent[]> {
  const agents = raw.filter((a): a is RankedAgent => !!a && typeof a === 'object')
  const found = await Promise.all(agents.map((a) => enrichmentOf(ctx, a, opts)))
  agents.forEach((a, i) => applyEnrichment(a, found[i]))
  return rankAgents(agents)
}
