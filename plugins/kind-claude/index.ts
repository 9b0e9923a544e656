/**
 * kind-claude: everything the bridge knows about Claude Code.
 *
 *   screen      permission prompts and question panels, `⏺` blocks, the permission-mode line
 *               and its back-tab cycle (screen.ts)
 *   transcript  ~/.claude/projects/<encoded cwd>/<session>.jsonl, subagent roster, done scan
 *               (transcript/)
 *   commands    .claude/commands and .claude/skills of the project and the user, built-ins
 *   usage       the plan quota from ~/.claude/.credentials.json (usage.ts)
 *
 * Option: `[kindClaude, { usageUrl }]` (or env BRIDGE_USAGE_URL) replaces the quota endpoint.
 */
import { defineBridgePlugin } from '../../core/plugin.ts'
import type { BridgeConfig } from '../../core/config.ts'
import { defineAgentKind } from '../../lib/kit.ts'
import { claudeScreen } from './screen.ts'
import { claudeTranscript } from './transcript/reader.ts'
import { claudeCommands } from './commands.ts'
import { createClaudeUsage, DEFAULT_USAGE_URL, type UsageReader } from './usage.ts'

export interface KindClaudeOptions {
  usageUrl?: string
}

/** One quota reader (and its cache) per running bridge. */
const readers = new WeakMap<BridgeConfig, UsageReader>()

export const claude = defineAgentKind({
  kind: 'claude',
  screen: claudeScreen,
  transcript: claudeTranscript,
  commands: async ({ cwd, ctx }) => claudeCommands(cwd, ctx.home),
  usage: ({ ctx }) => {
    let r = readers.get(ctx.config)
    if (!r) readers.set(ctx.config, (r = createClaudeUsage({ home: ctx.home, url: ctx.env.BRIDGE_USAGE_URL || DEFAULT_USAGE_URL, now: ctx.now })))
    return r.read() as ReturnType<NonNullable<typeof claude.usage>>
  },
})

export default defineBridgePlugin<KindClaudeOptions>({
  name: 'kind-claude',
  agentKinds: [claude],
  setup(ctx, options) {
    if (options?.usageUrl) readers.set(ctx.config, createClaudeUsage({ home: ctx.home, url: options.usageUrl, now: ctx.now }))
  },
})
