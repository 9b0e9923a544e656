/**
 * hermes: box-drawn panels with a title in the top border. The blocker is the last panel titled
 * "needs your input"; the summary is the last panel titled "hermes" (not its reasoning panel).
 */
import {
  type CardOption,
  type ScreenCapability,
  type ScreenParse,
  type Summary,
  type SummaryInput,
  cleanText,
  isBlank,
  isBoxOnly,
  isChrome,
  isQuestionShaped,
  isRule,
  numberedOption,
  readableLines,
  screenLines,
  toOption,
  truncate,
  countsUp,
} from '../../lib/kit.ts'

interface Panel {
  title: string
  lines: string[]
}

const TOP = /^\s*[╭┌┏╔]/
const BOTTOM = /^\s*[╰└┗╚]/
const BORDERS = /^\s*[│┃┊╎┆┇┋║]\s?|\s?[│┃┊╎┆┇┋║]\s*$/g
const TICKER = /^\s*(❓|⚕|🔄|⏱)/u

export function panels(text: string): Panel[] {
  const out: Panel[] = []
  let cur: Panel | null = null
  for (const l of screenLines(text)) {
    if (TOP.test(l)) {
      cur = { title: cleanText(l), lines: [] }
      continue
    }
    if (!cur) continue
    if (BOTTOM.test(l)) {
      out.push(cur)
      cur = null
      continue
    }
    cur.lines.push(l.replace(BORDERS, ''))
  }
  if (cur) out.push(cur)
  return out
}

const isBlocker = (p: Panel) => /needs your input|needs input|your input/i.test(p.title)

export function parseHermesScreen(screen: string): ScreenParse | null {
  const blocker = [...panels(screen)].reverse().find(isBlocker)
  if (!blocker) return null
  let question = ''
  let firstContent = ''
  const options: CardOption[] = []
  for (const l of blocker.lines) {
    if (isBlank(l) || isRule(l) || isBoxOnly(l) || isChrome(l)) continue
    const n = numberedOption(l, /^[❯›>]\s*/)
    if (n) {
      if (countsUp(options, n)) options.push(toOption(n))
    } else if (!options.length) {
      if (isQuestionShaped(l)) question = cleanText(l)
      else firstContent ||= cleanText(l)
    }
  }
  question ||= firstContent
  if (!question && !options.length) return null
  return { question, options }
}

export function summarizeHermes(input: SummaryInput): Summary {
  const transcript = readableLines(
    screenLines(input.recent || input.detection)
      .map((l) => l.replace(BORDERS, ''))
      .filter((l) => !TICKER.test(l)),
  ).slice(-12)
  const title = cleanText(input.title)
  if (input.blocked && (input.blocked.question || input.blocked.options.length)) {
    return { headline: truncate(input.blocked.question) || truncate(title) || `Agent ${input.status}`, detail: input.blocked.question, transcript }
  }
  const pick = (text: string) => [...panels(text)].reverse().find((p) => /hermes/i.test(p.title) && !/reasoning/i.test(p.title) && !isBlocker(p))
  const panel = pick(input.recent) ?? pick(input.detection)
  const body = panel ? readableLines(panel.lines.filter((l) => !TICKER.test(l))) : []
  if (body.length) return { headline: truncate(body[0]), detail: body.join('\n'), transcript }
  return { headline: truncate(title) || `Agent ${input.status}`, detail: title, transcript }
}

export const hermesScreen: ScreenCapability = { confirmKey: 'enter', parse: parseHermesScreen, summarize: summarizeHermes }
