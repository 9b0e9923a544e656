import { AGENT_BLOCKED, HerdrError, herdrRequest, herdrSubscribe, type Subscription } from './socket.ts'
import { DEFAULT_SESSION, qualify, qualifyInPlace, splitId, qualifyId, stripIds, isDefaultSession } from './ids.ts'
import { scanNamedSessions, sessionSocketPath } from './discovery.ts'
import type { AgentInfo, PaneInfo, PaneRef } from '../../lib/herdr-types.ts'

export { AGENT_BLOCKED, HerdrError, splitId, qualifyId, qualify, qualifyInPlace, stripIds, DEFAULT_SESSION, isDefaultSession }
export type { Subscription }
export type { PaneRef, PaneInfo, AgentInfo }

export interface HerdrOptions {
  env?: NodeJS.ProcessEnv
  /** Session re-scan period; herdr sessions come and go while the bridge runs. */
  rescanMs?: number
  timeoutMs?: number
}

export interface Herdr {
  /** Known sessions, default first. The default session is always listed. */
  sessions(): string[]
  socketPath(session: string): string
  /** One request to one session; throws HerdrError. */
  call<T = unknown>(session: string, method: string, params?: object, opts?: { timeoutMs?: number }): Promise<T>
  /** Splits a client id; an unknown session is a HerdrError with code `session_not_found`. */
  resolve(qualified: string): Promise<PaneRef>
  subscribe(session: string, subscriptions: object[], handlers: Parameters<typeof herdrSubscribe>[2]): Subscription
  /** `agent.get` for a client pane id; null when herdr has no agent there. */
  getAgent(qualified: string): Promise<{ ref: PaneRef; agent: AgentInfo } | null>
  /** `pane.get` for a client pane id; null when the pane does not exist. */
  getPane(qualified: string): Promise<{ ref: PaneRef; pane: PaneInfo } | null>
  onSessionsChanged(fn: (added: string[], removed: string[]) => void): () => void
  refresh(): Promise<void>
  /** Settles once the first session scan is done (sessions() lists only the default before). */
  ready(): Promise<void>
  close(): void
}

export function createHerdr(opts: HerdrOptions = {}): Herdr {
  const env = opts.env ?? process.env
  let named: string[] = []
  const listeners = new Set<(added: string[], removed: string[]) => void>()
  let refreshing: Promise<void> | null = null

  const refresh = () =>
    (refreshing ??= (async () => {
      try {
        const next = await scanNamedSessions(env, named)
        const added = next.filter((s) => !named.includes(s))
        const removed = named.filter((s) => !next.includes(s))
        named = next
        if (added.length || removed.length) for (const fn of listeners) fn(added, removed)
      } finally {
        refreshing = null
      }
    })())

  const timer = setInterval(() => void refresh().catch(() => {}), opts.rescanMs ?? 15_000)
  timer.unref()
  // Scan at once: named sessions would otherwise stay invisible for the first period.
  const firstScan = refresh().catch(() => {})

  const herdr: Herdr = {
    sessions: () => [DEFAULT_SESSION, ...named],
    socketPath: (s) => sessionSocketPath(s, env),
    call(session, method, params = {}, o = {}) {
      return herdrRequest(sessionSocketPath(session, env), method, params, { timeoutMs: o.timeoutMs ?? opts.timeoutMs ?? 15_000, session })
    },
    async resolve(qualified) {
      const { session, id } = splitId(qualified)
      if (!isDefaultSession(session) && !named.includes(session)) {
        await refresh()
        if (!named.includes(session)) throw new HerdrError('session_not_found', `session ${session} not found`, session)
      }
      return { session, id, qualified: qualifyId(session, id) }
    },
    subscribe(session, subscriptions, handlers) {
      return herdrSubscribe(sessionSocketPath(session, env), subscriptions, handlers, { session })
    },
    async getAgent(qualified) {
      const ref = await herdr.resolve(qualified)
      const r = await orNull(herdr.call<{ agent: AgentInfo }>(ref.session, 'agent.get', { target: ref.id }))
      return r && { ref, agent: r.agent }
    },
    async getPane(qualified) {
      const ref = await herdr.resolve(qualified)
      const r = await orNull(herdr.call<{ pane: PaneInfo }>(ref.session, 'pane.get', { pane_id: ref.id }))
      return r && { ref, pane: r.pane }
    },
    onSessionsChanged(fn) {
      listeners.add(fn)
      return () => listeners.delete(fn)
    },
    refresh,
    ready: () => firstScan,
    close: () => clearInterval(timer),
  }
  return herdr
}

/** herdr's `*_not_found` as null; every other failure stays an error. */
async function orNull<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p
  } catch (err) {
    if (err instanceof HerdrError && err.notFound) return null
    throw err
  }
}
