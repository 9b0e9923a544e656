/**
 * kind-codex: OpenAI's Codex CLI.
 *
 *   screen      its approval prompt (screen.ts)
 *   transcript  the JSONL rollout of the session under $CODEX_HOME/sessions (transcript/)
 *   start       options a start may give: the model, the sandbox, when to ask for approval
 */
import { defineBridgePlugin } from '../../core/plugin.ts'
import { defineAgentKind } from '../../lib/kit.ts'
import { codexScreen } from './screen.ts'
import { codexTranscript } from './transcript/reader.ts'

export const codex = defineAgentKind({
  kind: 'codex',
  screen: codexScreen,
  transcript: codexTranscript,
  start: {
    options: [
      { name: 'model', label: 'Model', flag: '--model', hint: 'gpt-5-codex' },
      { name: 'sandbox', label: 'Sandbox', flag: '--sandbox', values: ['read-only', 'workspace-write', 'danger-full-access'] },
      { name: 'approval', label: 'Ask for approval', flag: '--ask-for-approval', values: ['untrusted', 'on-request', 'never'] },
    ],
  },
})

export default defineBridgePlugin({ name: 'kind-codex', agentKinds: [codex] })
