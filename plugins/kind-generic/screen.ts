/**
 * The fallback for kinds with no parser of their own (`parsed:false`): the last readable lines
 * of the screen, never a `blocked`. Registered as kind `generic` (lib/card.ts FALLBACK_KIND).
 */
import { FALLBACK_KIND, defineAgentKind, summarizeGeneric } from '../../lib/kit.ts'

export default defineAgentKind({ kind: FALLBACK_KIND, screen: { summarize: summarizeGeneric } })
