/**
 * opencode: blocks drawn behind a heavy `┃` gutter; a question panel is the last gutter run
 * holding numbered options. Its question tool is also served by opencode's own service
 * (question-service.ts), which the card prefers over the screen.
 */
import {
  type CardOption,
  type ScreenCapability,
  type ScreenParse,
  type Summary,
  type SummaryInput,
  cleanText,
  isBlank,
  isChrome,
  isRule,
  isBoxOnly,
  numberedOption,
  readableLines,
  screenLines,
  toOption,
  truncate,
  countsUp,
} from '../../lib/kit.ts'

const GUTTER = /^\s*┃/
const FOOTER = /↑↓|enter submit|esc dismiss|esc cancel/i
const MARKER = /^\s*[✱→←▣✓✗●○+*] /

const ungutter = (l: string) => l.replace(/^\s*┃ ?/, '').replace(/\s*┃\s*$/, '')

export function parseOpencodeScreen(screen: string): ScreenParse | null {
  const ls = screenLines(screen)
  // Contiguous gutter runs, last first; the panel is the last one with a numbered line.
  const runs: string[][] = []
  let cur: string[] | null = null
  for (const l of ls) {
    if (GUTTER.test(l)) (cur ??= []).push(ungutter(l))
    else if (cur) {
      runs.push(cur)
      cur = null
    }
  }
  if (cur) runs.push(cur)
  const run = [...runs].reverse().find((r) => r.some((l) => numberedOption(l)))
  if (!run) return null
  let footer = false
  let question = ''
  const options: CardOption[] = []
  for (const l of run) {
    if (FOOTER.test(l)) {
      footer = true
      continue
    }
    const n = numberedOption(l, /^[❯›>]\s*/)
    if (n) {
      if (countsUp(options, n)) options.push(toOption(n))
    } else if (!options.length && !question && !isBlank(l)) question = cleanText(l)
  }
  // opencode marks the highlighted choice by colour alone; Enter takes the first by default.
  if (options.length && !options.some((o) => o.selected)) options[0].selected = true
  if (footer) options.push({ index: 0, label: 'Dismiss', selected: false, key: 'esc' })
  return { question, options }
}

function prose(text: string): string[] {
  const ls = screenLines(text)
  let last: string[] = []
  let cur: string[] = []
  for (const l of ls) {
    // Blank lines separate paragraphs of one message; gutter, marker and chrome lines end it.
    if (isBlank(l)) continue
    if (!GUTTER.test(l) && !MARKER.test(l) && !isChrome(l) && !isRule(l) && !isBoxOnly(l)) cur.push(cleanText(l))
    else {
      if (cur.length) last = cur
      cur = []
    }
  }
  if (cur.length) last = cur
  return last.filter(Boolean)
}

export function summarizeOpencode(input: SummaryInput): Summary {
  const transcript = readableLines(screenLines(input.recent || input.detection).map(ungutter)).slice(-12)
  if (input.blocked && (input.blocked.question || input.blocked.options.length)) {
    const q = input.blocked.question
    return { headline: truncate(q) || truncate(cleanText(input.title)) || `Agent ${input.status}`, detail: q, transcript }
  }
  const p = prose(input.recent).length ? prose(input.recent) : prose(input.detection)
  const title = cleanText(input.title)
  if (p.length) return { headline: truncate(p[0]), detail: p.join('\n'), transcript }
  return { headline: truncate(title) || `Agent ${input.status}`, detail: title, transcript }
}

export const opencodeScreen: ScreenCapability = { confirmKey: 'enter', parse: parseOpencodeScreen, summarize: summarizeOpencode }
