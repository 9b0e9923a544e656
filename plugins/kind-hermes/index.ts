/** kind-hermes: hermes' box-drawn panels for the card (screen.ts). */
import { defineBridgePlugin } from '../../core/plugin.ts'
import { defineAgentKind } from '../../lib/kit.ts'
import { hermesScreen } from './screen.ts'

export const hermes = defineAgentKind({ kind: 'hermes', screen: hermesScreen })

export default defineBridgePlugin({ name: 'kind-hermes', agentKinds: [hermes] })
