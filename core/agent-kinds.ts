/**
 * Per-kind behaviour. Every field is optional: plugins ask the registry for the pane's kind and
 * fall back to the generic behaviour of the spec when a capability is missing.
 */
export interface AgentKind {
  /** herdr's kind id, for example `claude`. */
  kind: string
  /** herdr key name pressed by `/approve` (default `enter`). */
  confirmKey?: string
  [capability: string]: unknown
}

export function defineAgentKind<T extends AgentKind>(def: T): T {
  return def
}

export interface AgentKindRegistry {
  get(kind: string | undefined): AgentKind | undefined
  register(def: AgentKind, owner: string): void
  list(): AgentKind[]
}

export function createAgentKindRegistry(): AgentKindRegistry {
  const kinds = new Map<string, { def: AgentKind; owner: string }>()
  const norm = (k: string) => k.trim().toLowerCase()
  return {
    get: (kind) => (kind ? kinds.get(norm(kind))?.def : undefined),
    register(def, owner) {
      const prev = kinds.get(norm(def.kind))
      // Two plugins may contribute different capabilities of one kind; a clash is an error.
      if (prev) {
        for (const key of Object.keys(def)) {
          if (key !== 'kind' && key in prev.def) throw new Error(`agent kind ${def.kind}: ${key} is contributed by both ${prev.owner} and ${owner}`)
        }
        Object.assign(prev.def, def)
      } else kinds.set(norm(def.kind), { def: { ...def }, owner })
    },
    list: () => [...kinds.values()].map((k) => k.def),
  }
}
