/**
 * kind-opencode: opencode.
 *
 *   screen      gutter-drawn question panels and prose (screen.ts)
 *   question    question forms answered through opencode's own service (question-service.ts)
 *   transcript  the session in opencode's local store, read-only (transcript/)
 */
import { defineBridgePlugin } from '../../core/plugin.ts'
import { defineAgentKind } from '../../lib/kit.ts'
import { opencodeScreen } from './screen.ts'
import { opencodeQuestionService } from './question-service.ts'
import { opencodeTranscript } from './transcript/reader.ts'

export const opencode = defineAgentKind({ kind: 'opencode', screen: opencodeScreen, question: opencodeQuestionService, transcript: opencodeTranscript })

export default defineBridgePlugin({ name: 'kind-opencode', agentKinds: [opencode] })
