// The fake agent's behaviour script (JSON). Every field is optional; see tests/harness/README.md.

export interface ToolStep {
  /** Tool name as claude writes it in tool_use blocks: Bash, Edit, Write, Read… */
  name: string
  input: Record<string, unknown>
  /** Text the tool "printed" (tool_result content / toolUseResult.stdout). */
  output?: string
  /** Ask for permission before running it (blocks on the permission prompt). Default true. */
  permission?: boolean
  /** Block category reported for agent.explain (default "tool_approval"). */
  category?: string
  /** Permission prompt question (default "Do you want to proceed?"). */
  question?: string
}

export interface QuestionStep {
  header?: string
  question: string
  options: Array<{ label: string; description?: string }>
  category?: string
}

export interface Turn {
  /** How long the agent "works" before its next step, in ms (default: script.work_ms). */
  work_ms?: number
  tool?: ToolStep
  /** More tool calls after `tool`, one per work_ms, each with its result in the transcript. */
  tools?: ToolStep[]
  question?: QuestionStep
  /** Final assistant text of the turn. */
  reply?: string
}

export interface HistoryMessage {
  role: 'user' | 'assistant'
  text: string
}

export interface AgentScript {
  /** Fixed session id (default: a random UUID). */
  session_id?: string
  /** Screen at launch: idle (default), permission, question or working. */
  start?: 'idle' | 'permission' | 'question' | 'working'
  /** Transcript lines written at launch, before anything else. */
  history?: HistoryMessage[]
  /** The pending tool call when start = permission. */
  permission?: ToolStep
  /** The pending question when start = question. */
  question?: QuestionStep
  /** Consumed one per submitted prompt; when empty, default_reply answers. */
  turns?: Turn[]
  default_reply?: string
  work_ms?: number
  /** Initial permission mode: default, acceptEdits, plan, bypassPermissions. */
  mode?: PermissionMode
  /** Terminal title shown after the status glyph (default: the kind's product name). */
  title?: string
  /** Keep working: when a turn ends the turns start over, so the transcript keeps growing. */
  loop?: boolean
  /** A background subagent spawned at launch (claude's subagents/ files beside the transcript). */
  subagent?: SubagentStep
}

export interface SubagentStep {
  agent_id: string
  agent_type?: string
  description: string
  prompt?: string
}

export type PermissionMode = 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions'

export const MODE_CYCLE: PermissionMode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions']

export const DEFAULT_PERMISSION: ToolStep = {
  name: 'Bash',
  input: { command: 'npm test', description: 'Run the test suite' },
  output: 'ok: 12 passed',
  permission: true,
  category: 'tool_approval',
}

export const DEFAULT_QUESTION: QuestionStep = {
  header: 'Approach',
  question: 'Which approach should I take?',
  options: [
    { label: 'Refactor first', description: 'Clean up before adding the feature' },
    { label: 'Feature first', description: 'Add the feature, refactor later' },
  ],
  category: 'question_panel',
}
