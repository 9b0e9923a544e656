/**
 * kind-codex: OpenAI's Codex CLI.
 *
 *   screen      its approval prompt (screen.ts)
 *   transcript  the JSONL rollout of the session under $CODEX_HOME/sessions (transcript/)
 */
import { defineBridgePlugin } from '../../core/plugin.ts'
import { defineAgentKind } from '../../lib/kit.ts'
import { codexScreen } from './screen.ts'
import { codexTranscript } from './transcript/reader.ts'

export const codex = defineAgentKind({ kind: 'codex', screen: codexScreen, transcript: codexTranscript })

export default defineBridgePlugin({ name: 'kind-codex', agentKinds: [codex] })
