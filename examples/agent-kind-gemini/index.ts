/**
 * herdr-bridge-kind-gemini: Gemini CLI as an agent kind. List it in a bridge config:
 *
 *   import { defineConfig, defaultPlugins } from 'herdr-bridge'
 *   import gemini from 'herdr-bridge-kind-gemini'
 *   export default defineConfig({ plugins: [...defaultPlugins, gemini] })
 */
import { defineAgentKind, definePlugin } from 'herdr-bridge'
import { geminiScreen } from './screen.ts'
import { geminiTranscript } from './transcript.ts'

export const gemini = defineAgentKind({ kind: 'gemini', screen: geminiScreen, transcript: geminiTranscript })

export default definePlugin({ name: 'kind-gemini', agentKinds: [gemini] })
