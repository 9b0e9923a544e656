/**
 * The per-session record of the last agent status announced for each pane, so a transition is
 * published once however many herdr events report it (the per-pane status event, `pane_created`,
 * `pane_updated` and `pane_agent_detected` can all carry the same change). Seeded from the
 * snapshot on every (re)connect, so a state that already held is not announced again.
 */

export interface PaneStatus {
  status: string
  agent: string
  workspace: string
}

export interface StatusBook {
  /** Replaces everything with what herdr reports now; nothing is announced for it. */
  /** herdr sends `null` for an absent agent kind or workspace (lib/herdr/api.ts); both read as empty. */
  seed(agents: { pane_id: string; workspace_id?: string | null; agent?: string | null; agent_status?: string | null }[]): void
  get(pane: string): PaneStatus | undefined
  has(pane: string): boolean
  /**
   * Records the pane's current status. Returns the record when it is a real transition (a new
   * pane or a different status), undefined when nothing changed.
   */
  commit(pane: string, status: string | undefined, agent?: string | null, workspace?: string | null): PaneStatus | undefined
  forget(pane: string): void
  /** herdr gives a moved pane a new id. */
  rename(from: string, to: string): void
  panes(): string[]
}

export function createStatusBook(): StatusBook {
  const map = new Map<string, PaneStatus>()
  return {
    seed(agents) {
      map.clear()
      for (const a of agents) {
        if (!a.pane_id || !a.agent_status) continue
        map.set(a.pane_id, { status: a.agent_status, agent: a.agent ?? '', workspace: a.workspace_id ?? '' })
      }
    },
    get: (pane) => map.get(pane),
    has: (pane) => map.has(pane),
    commit(pane, status, agent, workspace) {
      if (!pane || !status) return undefined
      const prev = map.get(pane)
      const next: PaneStatus = { status, agent: agent || prev?.agent || '', workspace: workspace || prev?.workspace || '' }
      map.set(pane, next)
      return prev?.status === status ? undefined : next
    },
    forget: (pane) => void map.delete(pane),
    rename(from, to) {
      const v = map.get(from)
      if (!v) return
      map.delete(from)
      map.set(to, v)
    },
    panes: () => [...map.keys()],
  }
}

/**
 * Runs `work(key)` at most once at a time per key; a request while it runs schedules exactly one
 * more run afterwards, so the last request always sees fresh state and bursts cost two runs.
 */
export function createCoalescer(work: (key: string) => Promise<void>): { request(key: string): Promise<void>; busy(key: string): boolean; idle(): Promise<void> } {
  const running = new Map<string, { again: boolean; done: Promise<void> }>()
  const request = (key: string): Promise<void> => {
    const cur = running.get(key)
    if (cur) {
      cur.again = true
      return cur.done
    }
    const slot = { again: false, done: Promise.resolve() }
    slot.done = (async () => {
      try {
        do {
          slot.again = false
          await work(key).catch(() => {})
        } while (slot.again)
      } finally {
        running.delete(key)
      }
    })()
    running.set(key, slot)
    return slot.done
  }
  return {
    request,
    busy: (key) => running.has(key),
    async idle() {
      while (running.size) await Promise.all([...running.values()].map((s) => s.done))
    },
  }
}
