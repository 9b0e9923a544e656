import type { PluginContext } from './plugin.ts'
import type { AgentInfo } from './herdr/index.ts'
import type { ParseScreen, Summarize, QuestionService, Summary } from '../lib/card.ts'

/**
 * Per-kind behaviour. Every field is optional: plugins ask the registry for the pane's kind and
 * fall back to the generic behaviour of the spec when a capability is missing. Several plugins
 * may contribute different capabilities of one kind (the card plugin the screen parser, the
 * transcript plugin the reader); the same capability from two plugins is a start-up error.
 */
export interface AgentKind {
  /** herdr's kind id, for example `claude`. */
  kind: string
  /** herdr key name pressed by `/approve` (default `enter`). */
  confirmKey?: string
  /** Card: blocked question and options from the current screen (plugins/agent-state); see lib/card.ts. */
  parseScreen?: ParseScreen
  /** Card: headline / detail / transcript lines from the screen (plugins/agent-state). */
  summarize?: Summarize
  /** Card: permission mode read from the screen, or undefined. */
  permissionMode?: (screen: string) => string | undefined
  /** Raw bytes that advance the permission mode one step (sent with pane.send_text). */
  modeCycleInput?: string
  /** A managed question service for the kind's blocked question (plugins/agent-state). */
  questionService?: QuestionService
  /** Transcript reader (plugins/transcript). */
  transcript?: TranscriptCapability
  /** Slash-command discovery (plugins/commands). */
  commands?: (cwd: string, ctx: PluginContext) => Promise<unknown[]>
  /** Quota reader (plugins/usage). */
  usage?: (ctx: PluginContext) => Promise<unknown>
  [capability: string]: unknown
}

/** What the snapshot needs from a transcript-capable kind. */
export interface TranscriptCapability {
  /** Unix ms of the agent's last transcript write; undefined when undatable. */
  lastActivity?: (agent: AgentInfo, home: string) => Promise<number | undefined>
  /** Subagent counts; undefined when nothing was delegated. */
  subagentCounts?: (agent: AgentInfo, home: string) => Promise<{ total: number; running: number } | undefined>
  /**
   * Card headline / detail / recent lines from the transcript (lib/card.ts uses it for a pane
   * that is not blocked); undefined when there is nothing to say yet.
   */
  summary?: (agent: AgentInfo, home: string) => Promise<Summary | undefined>
  [k: string]: unknown
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
  const kinds = new Map<string, { def: AgentKind; owners: Map<string, string> }>()
  const norm = (k: string) => k.trim().toLowerCase()
  return {
    get: (kind) => (kind ? kinds.get(norm(kind))?.def : undefined),
    register(def, owner) {
      let entry = kinds.get(norm(def.kind))
      if (!entry) kinds.set(norm(def.kind), (entry = { def: { kind: norm(def.kind) }, owners: new Map() }))
      for (const [key, value] of Object.entries(def)) {
        if (key === 'kind') continue
        const prev = entry.owners.get(key)
        if (prev) throw new Error(`agent kind ${def.kind}: ${key} is contributed by both plugin ${prev} and plugin ${owner}`)
        entry.owners.set(key, owner)
        entry.def[key] = value
      }
    },
    list: () => [...kinds.values()].map((k) => k.def),
  }
}
