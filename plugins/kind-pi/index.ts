/**
 * kind-pi: pi's transcripts. herdr reports pi's session as the path of its JSONL file (or a
 * bare id looked up under ~/.pi/agent/sessions); the screen card is the generic one.
 */
import { defineBridgePlugin } from '../../core/plugin.ts'
import { defineAgentKind } from '../../lib/kit.ts'
import { piTranscript } from './reader.ts'

export const pi = defineAgentKind({ kind: 'pi', transcript: piTranscript })

export default defineBridgePlugin({ name: 'kind-pi', agentKinds: [pi] })
