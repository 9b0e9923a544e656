/**
 * codex: its approval prompt (a question, the command, numbered choices with `›` on the
 * default). The rest of the card is the generic screen fallback.
 */
import {
  type CardOption,
  type ScreenCapability,
  type ScreenParse,
  summarizeGeneric,
  cleanText,
  isBlank,
  isBoxOnly,
  isChrome,
  isQuestionShaped,
  isRule,
  numberedOption,
  screenLines,
  toOption,
  truncate,
  unbox,
  countsUp,
  markRisky,
} from '../../lib/kit.ts'

const MARKERS = /^[›❯>]\s*/
const HINT = /press enter|esc to cancel|to confirm/i

export function parseCodexScreen(screen: string): ScreenParse | null {
  const ls = screenLines(screen).map((l) => unbox(l, '│┃▌'))
  let anchor = -1
  for (let i = ls.length - 1; i >= 0; i--) {
    if (numberedOption(ls[i], MARKERS)?.index === 1) {
      anchor = i
      break
    }
  }
  if (anchor < 0) return null
  const options: CardOption[] = []
  for (let i = anchor; i < ls.length; i++) {
    const n = numberedOption(ls[i], MARKERS)
    if (n && countsUp(options, n)) options.push(toOption(n))
  }
  // The question sits above the command being approved; the lines between are the context.
  let qi = -1
  for (let i = anchor - 1; i >= 0 && i >= anchor - 30; i--) {
    if (isRule(ls[i])) break
    if (isQuestionShaped(ls[i]) && !isChrome(ls[i])) {
      qi = i
      break
    }
  }
  const context: string[] = []
  for (let i = qi + 1; i < anchor; i++) {
    const l = ls[i]
    if (qi < 0 || isBlank(l) || isBoxOnly(l) || isChrome(l) || HINT.test(l)) continue
    const c = cleanText(l)
    if (c) context.push(c)
  }
  return { question: qi >= 0 ? cleanText(ls[qi]) : '', options: markRisky(options), context: context.join('\n') }
}

export const codexScreen: ScreenCapability = {
  confirmKey: 'enter',
  parse: parseCodexScreen,
  summarize: (input) => {
    const base = summarizeGeneric(input)
    const b = input.blocked
    if (b?.question) return { ...base, headline: truncate(b.question), detail: b.context || b.question }
    return base
  },
}
