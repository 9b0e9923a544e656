/**
 * Gemini CLI's screen. Its approval prompt is a bordered box: a question ending in `?` ("Allow
 * execution of: 'npm'?"), then numbered choices with `●` on the highlighted one, the last one
 * taking `esc`. The rest of the card is the bridge's generic summary.
 */
import {
  cleanText,
  countsUp,
  isBlank,
  isBoxOnly,
  isQuestionShaped,
  numberedOption,
  screenLines,
  summarizeGeneric,
  toOption,
  truncate,
  unbox,
  type CardOption,
  type ScreenCapability,
  type ScreenParse,
} from 'herdr-bridge'

const MARKERS = /^[●❯›>]\s*/

export function parseGeminiScreen(screen: string): ScreenParse | null {
  const ls = screenLines(screen).map((l) => unbox(l))
  // The last menu on screen starts at its last `1.` line.
  let anchor = -1
  for (let i = ls.length - 1; i >= 0 && anchor < 0; i--) if (numberedOption(ls[i], MARKERS)?.index === 1) anchor = i
  if (anchor < 0) return null
  const options: CardOption[] = []
  for (let i = anchor; i < ls.length; i++) {
    const n = numberedOption(ls[i], MARKERS)
    if (!n) continue
    if (!countsUp(options, n)) break
    // "No, suggest changes (esc)": the option is also its key.
    const opt = toOption({ ...n, label: n.label.replace(/\s*\(esc\)$/i, '') })
    options.push(opt)
  }
  if (options.length && !options.some((o) => o.selected)) options[0].selected = true
  let question = ''
  const context: string[] = []
  for (let i = anchor - 1; i >= 0 && i >= anchor - 20; i--) {
    const l = ls[i]
    if (isBlank(l) || isBoxOnly(l)) continue
    if (!question && isQuestionShaped(l)) question = cleanText(l)
    else if (question) {
      // Above the question: the tool line (`?  Shell  npm test`) says what is asked.
      context.unshift(cleanText(l).replace(/^\?\s+/, ''))
      break
    }
  }
  return { question, options, context: context.join('\n') }
}

export const geminiScreen: ScreenCapability = {
  confirmKey: 'enter',
  parse: parseGeminiScreen,
  summarize: (input) => {
    const base = summarizeGeneric(input)
    const b = input.blocked
    return b?.question ? { ...base, headline: truncate(b.question), detail: b.context || b.question } : base
  },
}
