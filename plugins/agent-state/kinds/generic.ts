/**
 * The fallback for kinds with no parser of their own (`parsed:false`): the last readable lines
 * of the screen, never a `blocked`. Registered as kind `generic` (lib/card.ts FALLBACK_KIND).
 */
import { defineAgentKind } from '../../../core/agent-kinds.ts'
import { FALLBACK_KIND, type Summary, type SummaryInput } from '../../../lib/card.ts'
import { cleanText, readableLines, screenLines, truncate } from '../../../lib/text.ts'

export const FALLBACK_LINES = 12

export function summarizeGeneric(input: SummaryInput): Summary {
  let ls = readableLines(screenLines(input.recent))
  if (!ls.length) ls = readableLines(screenLines(input.detection))
  const transcript = ls.slice(-FALLBACK_LINES)
  const title = cleanText(input.title)
  return {
    headline: truncate(transcript.at(-1) ?? '') || truncate(title) || `Agent ${input.status}`,
    detail: transcript.join('\n'),
    transcript,
  }
}

export default defineAgentKind({ kind: FALLBACK_KIND, summarize: summarizeGeneric })
