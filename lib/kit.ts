/**
 * The agent-kind kit: everything a kind needs to teach the bridge its screen and transcript,
 * in one module. In-tree kinds import it as `lib/kit.ts`; out-of-tree kinds as
 * `herdr-bridge/kit` (or from `herdr-bridge`, which re-exports it). Nothing here reads state;
 * every function is safe on any input.
 */

// The contract.
export {
  defineAgentKind,
  streamsTranscript,
  type AgentKind,
  type ScreenCapability,
  type PermissionModes,
  type TranscriptCapability,
  type TranscriptHost,
  type TranscriptSource,
  type Located,
  type Location,
  type LocateInput,
  type CommandsCapability,
  type SlashCommand,
  type UsageCapability,
  type KindUsage,
  type StartCapability,
  type StartOption,
} from './agent-kinds.ts'
export type { AgentInfo } from './herdr-types.ts'
export type { KindContext } from './kind-context.ts'

// The card: its types, and the generic screen summary.
export {
  FALLBACK_KIND,
  summarizeGeneric,
  type CardOption,
  type ScreenParse,
  type Summary,
  type SummaryInput,
  type ParseScreen,
  type Summarize,
  type QuestionService,
  type PendingQuestion,
  type QuestionAnswer,
} from './card.ts'

// Screen text rules: ANSI, rules, box-only and chrome lines, numbered options, truncation.
export * from './text.ts'

// Transcript entries (the shape /agent-transcript streams) and their text rules.
export {
  TEXT_CAP,
  OUTPUT_CAP,
  SUBTITLE_CAP,
  SUMMARY_CAP,
  capRunes,
  cap,
  oneLine,
  basename,
  isObj,
  str,
  compact,
  unparsedEntry,
  parseJsonRecord,
  field,
  normalizeJsonLine,
  type Role,
  type EntryKind,
  type ToolInfo,
  type ToolResult,
  type RawEntry,
  type Entry,
  type RosterRow,
} from './transcript/entry.ts'
// Tool-call diffs, capped at 400 lines / 12 000 runes.
export { capDiff, diffForEdit, diffForWrite, diffFromStructuredPatch, type BuiltDiff } from './transcript/diffs.ts'
// Locating: safe names, herdr's session value, the pane's cwds, a file's header lines, and the
// fallback without a session id (the newest session recorded for the pane's cwd).
export { SAFE_NAME, isFile, sessionValue, cwdsOf, sharesCwdWith, readHeadLines, newestSession, locateByCwd, type TranscriptReader } from './transcript/locate.ts'
// JSONL files: complete-line scanning, the last 64 KiB, timestamps, the card summary, paging.
export { scanLines } from './transcript/lines.ts'
export { moduleBeside } from './transcript/count-pass.ts'
export { readTailLines, lastTimestamp, timestampOf, TAIL_BYTES } from './transcript/activity.ts'
export { summarizeTail, summarizeEntries } from './transcript/summary.ts'
export { newestPage, olderPage, clampLimit, NEWEST_PAGE, OLDER_DEFAULT, OLDER_MAX, type Page } from './transcript/paging.ts'
// A bounded cache (size, optional TTL) for what a kind looks up repeatedly.
export { createCache, type Cache } from './cache.ts'
// Command and skill files.
export { parseFrontmatter, readHead, FRONTMATTER_BYTES } from './frontmatter.ts'
