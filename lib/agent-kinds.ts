import type { AgentInfo } from './herdr-types.ts'
import type { KindContext } from './kind-context.ts'
import type { ParseScreen, Summarize, QuestionService, Summary } from './card.ts'
import type { Entry, RawEntry, RosterRow } from './transcript/entry.ts'

/**
 * What one agent kind teaches the bridge. Every capability is optional: the card, transcript,
 * commands and usage plugins ask the registry for the pane's kind and fall back to the generic
 * behaviour when a capability is missing. A kind is normally one plugin; another plugin may add
 * a capability the kind lacks, but the same capability from two plugins is a start-up error
 * naming both.
 */
export interface AgentKind {
  /** herdr's kind id (`agent` in herdr's agent info), matched trimmed and lower-cased. */
  kind: string
  screen?: ScreenCapability
  /** A question the agent serves itself (a form), preferred to the screen when present. */
  question?: QuestionService
  transcript?: TranscriptCapability
  commands?: CommandsCapability
  usage?: UsageCapability
  /** Options a start may give the agent (`POST /agent/start` `options`), each becoming arguments. */
  start?: StartCapability
}

/** The card read from the screen (`GET /agent-state`), the approve key and the permission modes. */
export interface ScreenCapability {
  /** Blocked question and options from the screen text, or null when none is drawn. */
  parse?: ParseScreen
  /** Headline / detail / recent lines when not blocked; default: the `generic` kind's. */
  summarize?: Summarize
  /** herdr key name pressed by `/approve` (default `enter`). */
  confirmKey?: string
  modes?: PermissionModes
}

export interface PermissionModes {
  /** The mode shown on screen, or undefined. */
  read: (screen: string) => string | undefined
  /** Raw bytes sent with `pane.send_text` to advance the mode one step (no cycling without). */
  cycleInput?: string
  /** The modes in cycle order, for clients that draw the ring. */
  known?: string[]
}

/** Where the bridge's own environment is read from (tests give the bridge its own). */
export interface TranscriptHost {
  home: string
  env: NodeJS.ProcessEnv
}

export interface Located {
  /** The transcript session id (shown in hello.session_id). */
  sessionId: string
  /** The session's file, or the folder of a store-backed session. */
  path: string
}

/** A locate verdict: the session (its file may not exist yet), or why there is none (a 404 reason). */
export type Location = { ok: true; located: Located } | { ok: false; reason: string }

export interface LocateInput extends TranscriptHost {
  agent: AgentInfo
  /** Other agents of the pane's herdr session, when the caller has them (ambiguity check). */
  others?: AgentInfo[]
}

/**
 * A session opened for streaming, indexed by entry seq (1-based, never reused). JSONL readers
 * never build one: the transcript plugin indexes their file. A store that is not one JSONL file
 * (a folder tree, a database) opens its own.
 */
export interface TranscriptSource {
  /** Picks up whatever was written since the last call. */
  refresh(): Promise<void>
  /** seq of the newest entry. */
  readonly total: number
  /** seq of the oldest entry still readable (1 unless the store was truncated). */
  readonly first: number
  /** Whether the session exists yet. */
  readonly exists: boolean
  /** Entries with from ≤ seq ≤ to, oldest first. */
  read(from: number, to: number): Promise<Entry[]>
}

/** The kind's conversation log (streamed on /agent-transcript): where it is, and how a record becomes entries. */
export interface TranscriptCapability {
  /** Finds the session from herdr's `agent_session` and the pane's cwd; never guesses another session's. */
  locate?(input: LocateInput): Promise<Location>
  /** One JSONL record → 0..n entries (the transcript plugin pages and tails the file). */
  normalize?(line: string): RawEntry[]
  /** Entries a line yields without building them (indexing); must equal normalize(line).length. */
  count?(line: string): number
  /**
   * URL of an ES module whose `count` export is `count` above, loadable on its own: a long first
   * count then runs in a worker thread (its memory returned when it ends). Without it, or where
   * the module cannot load, the count runs on the main thread. Built-in kinds name a `count.ts`
   * beside their reader through `moduleBeside(import.meta.url, './count.ts')` (lib/kit.ts).
   */
  counter?: string
  /** A session that is not one JSONL file; `path` is located.path or a subagent's path. */
  open?(located: Located, path: string): TranscriptSource
  /** The flat subagent roster (with each row's `done`), sorted by depth then id; [] when none. */
  roster?(parent: Located): Promise<RosterRow[]>
  /** The transcript of one roster row (only ever called with a discovered id). */
  subagentPath?(parent: Located, agentId: string): string
  /** Unix ms of the agent's last transcript write (snapshot `last_activity_ts`); undefined when undatable. */
  lastActivity?(agent: AgentInfo, host: TranscriptHost): Promise<number | undefined>
  /** Subagent counts for the snapshot; undefined when nothing was delegated. */
  subagentCounts?(agent: AgentInfo, host: TranscriptHost): Promise<{ total: number; running: number } | undefined>
  /** Card headline / detail / recent lines from the transcript, used when not blocked. */
  summary?(agent: AgentInfo, host: TranscriptHost): Promise<Summary | undefined>
}

/** A kind's transcript can be streamed when it can be located and read. */
export const streamsTranscript = (t: TranscriptCapability | undefined): boolean =>
  !!t && typeof t.locate === 'function' && (typeof t.normalize === 'function' || typeof t.open === 'function')

/** One slash command, as `GET /commands` lists it. */
export interface SlashCommand {
  name: string
  description: string
  argument_hint?: string
  source: 'command' | 'skill' | 'builtin'
  scope?: 'user' | 'project'
}

/** Slash-command discovery for a pane's working directory. */
export type CommandsCapability = (input: { cwd: string; ctx: KindContext }) => Promise<SlashCommand[]>

/** One kind's quota as `/usage` returns it under the kind's key. */
export interface KindUsage {
  available: boolean
  reason?: string
  subscription_type?: string
  [window: string]: unknown
}

/** Quota reader (`GET /usage`). */
export type UsageCapability = (input: { ctx: KindContext }) => Promise<KindUsage>

/**
 * One option of a kind's start: `options: {model: 'sonnet'}` becomes `--model sonnet` after the
 * executable (herdr's `agent.start` `args`). Only declared options pass, with a value of their shape.
 */
export interface StartOption {
  /** Its key in `options`: lowercase letters, digits and `_`. */
  name: string
  /** What it is, for a client's label ("Model"). */
  label: string
  /** The flag the value follows (`--model`). */
  flag: string
  /** The values it takes, when it is a choice; else free text of `pattern`'s shape. */
  values?: readonly string[]
  /** Free text's shape, anchored (default: 1–100 of letters, digits and . _ : / @ [ ] + -). */
  pattern?: RegExp
  /** An example value, for a client's placeholder. */
  hint?: string
}

export interface StartCapability {
  options: readonly StartOption[]
}

/** The capabilities a plugin may contribute for a kind. */
export type KindCapability = Exclude<keyof AgentKind, 'kind'>
const CAPABILITIES: readonly KindCapability[] = ['screen', 'question', 'transcript', 'commands', 'usage', 'start']

export function defineAgentKind(def: AgentKind): AgentKind {
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
      if (typeof def?.kind !== 'string' || !norm(def.kind)) throw new Error(`plugin ${owner}: an agent kind needs a non-empty kind id`)
      let entry = kinds.get(norm(def.kind))
      if (!entry) kinds.set(norm(def.kind), (entry = { def: { kind: norm(def.kind) }, owners: new Map() }))
      for (const key of Object.keys(def)) {
        const value: unknown = (def as unknown as Record<string, unknown>)[key]
        if (key === 'kind' || value === undefined) continue
        if (!CAPABILITIES.includes(key as KindCapability)) {
          throw new Error(`agent kind ${def.kind} (plugin ${owner}): unknown capability ${key}; want one of ${CAPABILITIES.join(', ')}`)
        }
        const prev = entry.owners.get(key)
        if (prev) throw new Error(`agent kind ${def.kind}: ${key} is contributed by both plugin ${prev} and plugin ${owner}`)
        entry.owners.set(key, owner)
        // The key is one of CAPABILITIES (checked above): the same field of the same type on both.
        ;(entry.def as unknown as Record<string, unknown>)[key] = value
      }
    },
    list: () => [...kinds.values()].map((k) => k.def),
  }
}
