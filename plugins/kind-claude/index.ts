/**
 * kind-claude: everything the bridge knows about Claude Code.
 *
 *   screen      permission prompts and question panels, `⏺` blocks, the permission-mode line
 *               and its back-tab cycle (screen.ts)
 *   transcript  ~/.claude/projects/<encoded cwd>/<session>.jsonl, subagent roster, done scan
 *               (transcript/)
 *   commands    .claude/commands and .claude/skills of the project and the user, built-ins
 *   usage       the plan quota from ~/.claude/.credentials.json (usage.ts)
 *   start       options a start may give: the model, the permission mode
 *
 * Option: `[kindClaude, { usageUrl }]` (or env BRIDGE_USAGE_URL) replaces the quota endpoint.
 *
 * The quota reader keeps a cache, one per running bridge: it is made at setup and its capability
 * registered then, beside the stateless ones listed in `agentKinds`.
 */
import { defineBridgePlugin } from '../../core/plugin.ts'
import { defineAgentKind, type AgentKind } from '../../lib/kit.ts'
import { claudeScreen } from './screen.ts'
import { claudeTranscript } from './transcript/reader.ts'
import { claudeCommands } from './commands.ts'
import { createClaudeUsage, DEFAULT_USAGE_URL } from './usage.ts'

export interface KindClaudeOptions {
  usageUrl?: string
}

export const claude = defineAgentKind({
  kind: 'claude',
  screen: claudeScreen,
  transcript: claudeTranscript,
  commands: async ({ cwd, ctx }) => claudeCommands(cwd, ctx.home),
  start: {
    options: [
      { name: 'model', label: 'Model', flag: '--model', hint: 'sonnet' },
      { name: 'permission_mode', label: 'Permission mode', flag: '--permission-mode', values: ['default', 'acceptEdits', 'plan', 'bypassPermissions'] },
    ],
  },
})

export default defineBridgePlugin<KindClaudeOptions>({
  name: 'kind-claude',
  agentKinds: [claude],
  setup(ctx, options) {
    const reader = createClaudeUsage({ home: ctx.home, url: options?.usageUrl || ctx.env.BRIDGE_USAGE_URL || DEFAULT_USAGE_URL, now: ctx.now })
    ctx.agentKinds.register(defineAgentKind({ kind: 'claude', usage: () => reader.read() as ReturnType<NonNullable<AgentKind['usage']>> }), 'kind-claude')
  },
})
