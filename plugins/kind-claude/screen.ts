/**
 * claude: permission prompts and question panels (numbered options, `❯` marks the default),
 * `⏺` message blocks for the summary, and the permission-mode line.
 */
import type { CardOption, ScreenCapability, ScreenParse, Summary, SummaryInput } from '../../lib/kit.ts'
import {
  cleanText,
  isBlank,
  isBoxOnly,
  isChrome as isSharedChrome,
  isQuestionShaped,
  isRule,
  isSpinner,
  numberedOption,
  screenLines,
  startsMenu,
  toOption,
  truncate,
  unbox,
  markRisky,
} from '../../lib/kit.ts'

const lines = (text: string) => screenLines(text).map((l) => unbox(l))

/** Claude's own furniture beside the shared key hints: its prompt's hints, welcome banner and mode lines. */
const CLAUDE_CHROME = [
  'tab to amend',
  'ctrl+e to explain',
  'mode on (shift+tab',
  'manual mode on',
  'auto mode on',
  'for getting started',
  'welcome back',
  '/release-notes',
  'claude code v',
  // Mode lines that do not say "mode" (`⏵⏵ accept edits on (shift+tab to cycle)`).
  ' on (shift+tab',
]
const isChrome = (line: string) => isSharedChrome(line, CLAUDE_CHROME)

export function parseClaudeScreen(screen: string): ScreenParse | null {
  const ls = lines(screen)
  let anchor = -1
  for (let i = ls.length - 1; i >= 0; i--) {
    if (startsMenu(ls[i])) {
      anchor = i
      break
    }
  }
  if (anchor >= 0) {
    const options: CardOption[] = []
    for (let i = anchor; i < ls.length; i++) {
      const n = numberedOption(ls[i])
      if (!n) continue
      // The menu counts up from 1; a number that does not is something else below it.
      if (options.length && n.index <= options[options.length - 1].index) break
      options.push(toOption(n))
    }
    const qi = questionAbove(ls, anchor)
    const question = qi >= 0 ? cleanText(ls[qi]) : ''
    if (options.length <= 1 && ls.some((l) => /\besc to cancel\b/i.test(l))) options.push({ index: 0, label: 'No', selected: false, key: 'esc' })
    return { question, options: markRisky(options), context: context(ls, qi >= 0 ? qi : anchor, question) }
  }
  const lastRule = findLastIndex(ls, isRule)
  return scan(ls, lastRule + 1) ?? (lastRule >= 0 ? scan(ls, 0) : null)
}

/** Nearest question-shaped line above the menu; a rule or a non-question line first means none. */
function questionAbove(ls: string[], anchor: number): number {
  for (let i = anchor - 1; i >= 0; i--) {
    const l = ls[i]
    if (isBlank(l)) continue
    if (isRule(l)) return -1
    if (isBoxOnly(l)) continue
    return isQuestionShaped(l) ? i : -1
  }
  return -1
}

/** A prompt with no menu at 1: the last question before any option, and the numbered lines. */
function scan(ls: string[], from: number): ScreenParse | null {
  let question = ''
  let qi = -1
  const options: CardOption[] = []
  for (let i = from; i < ls.length; i++) {
    const n = numberedOption(ls[i])
    if (n) {
      // Numbers that stop counting up start a newer list (older output scrolled above it):
      // keep the newest, so no number is offered twice.
      if (options.length && n.index <= options[options.length - 1].index) options.length = 0
      options.push(toOption(n))
    } else if (!options.length && isQuestionShaped(ls[i]) && !isChrome(ls[i])) {
      question = cleanText(ls[i])
      qi = i
    }
  }
  if (!question && !options.length) return null
  return { question, options: markRisky(options), context: context(ls, qi >= 0 ? qi : ls.length, question) }
}

/** What is being approved: content lines between the last rule above the question and the question. */
function context(ls: string[], end: number, question: string): string {
  let start = 0
  for (let i = Math.min(end, ls.length) - 1; i >= 0; i--) {
    if (isRule(ls[i])) {
      start = i + 1
      break
    }
  }
  const out: string[] = []
  for (let i = start; i < Math.min(end, ls.length); i++) {
    const l = ls[i]
    if (isBlank(l) || isRule(l) || isBoxOnly(l) || isChrome(l) || numberedOption(l)) continue
    const c = cleanText(l)
    if (c && c !== question) out.push(c)
  }
  return out.join('\n')
}

interface Block {
  head: string
  body: string[]
  tool: boolean
}

const TOOL_WORDS =
  /^(Running|Ran|Read|Reading|List|Listed|Listing|Search|Searched|Searching|Wrote|Writing|Updated|Updating|Created|Creating|Deleted|Deleting|Fetched|Fetching|Called|Calling|Explored|Exploring|Analyzed|Analyzing|Analysed|Analysing|Waited|Waiting|Bash|Compacted|Compacting|Referenced|Referencing)\b/

export function isToolHead(head: string): boolean {
  return TOOL_WORDS.test(head) || /^[\p{L}\p{N}_.-]+\(/u.test(head)
}

/** `⏺` blocks: the head line plus its indented continuation, up to a dedent or a `⎿` result. */
export function bulletBlocks(text: string): Block[] {
  const ls = lines(text)
  const blocks: Block[] = []
  for (let i = 0; i < ls.length; i++) {
    const t = ls[i].trimStart()
    if (!t.startsWith('⏺')) continue
    const head = cleanText(t.slice(1))
    const body: string[] = []
    let j = i + 1
    for (; j < ls.length; j++) {
      const l = ls[j]
      if (!isBlank(l) && !/^\s/.test(l)) break
      if (l.trimStart().startsWith('⎿') || l.trimStart().startsWith('⏺')) break
      if (isBlank(l) || isChrome(l) || isRule(l) || isBoxOnly(l)) continue
      body.push(cleanText(l))
    }
    blocks.push({ head, body, tool: isToolHead(head) })
    i = j - 1
  }
  return blocks
}

const blockText = (b: Block) => [b.head, ...b.body].filter(Boolean).join('\n')

export function claudeTranscript(text: string): string[] {
  const out: string[] = []
  for (const l of lines(text)) {
    if (isBlank(l) || isRule(l) || isBoxOnly(l) || isChrome(l) || isSpinner(l) || l.trimStart().startsWith('⎿')) continue
    const c = cleanText(l.trimStart().replace(/^⏺\s*/, ''))
    if (c) out.push(c)
  }
  return out.slice(-12)
}

export function summarizeClaude(input: SummaryInput): Summary {
  const transcript = claudeTranscript(input.recent || input.detection)
  if (input.blocked && (input.blocked.question || input.blocked.options.length)) {
    const headline = input.blocked.question ? truncate(input.blocked.question) : fromScreen(input).headline
    return { headline, detail: input.blocked.context || input.blocked.question || headline, transcript }
  }
  return { ...fromScreen(input), transcript }
}

function fromScreen(input: SummaryInput): Summary {
  const recent = bulletBlocks(input.recent)
  const detection = bulletBlocks(input.detection)
  const prose = [...recent].reverse().find((b) => !b.tool) ?? [...detection].reverse().find((b) => !b.tool)
  if (prose) return { headline: truncate(prose.head || prose.body[0] || ''), detail: blockText(prose) }
  // Only tool calls in view: the task title says what, the last step says where it is.
  const last = recent.at(-1) ?? detection.at(-1)
  const activity = last ? last.head : ''
  const title = cleanText(input.title)
  return { headline: truncate(title) || truncate(activity) || `Agent ${input.status}`, detail: activity || title }
}

const MODES: [string[], string][] = [
  [['bypass permissions on', 'bypasspermissions mode on'], 'bypassPermissions'],
  [['accept edits on', 'acceptedits mode on'], 'acceptEdits'],
  [['plan mode on'], 'plan'],
  [['auto mode on'], 'auto'],
  [['manual mode on', 'default mode on'], 'default'],
]

/** The last mode line on screen wins; a build's unknown mode passes as its lowercased label. */
export function claudePermissionMode(screen: string): string | undefined {
  const ls = screenLines(screen)
  for (let i = ls.length - 1; i >= 0; i--) {
    const lower = ls[i].toLowerCase()
    for (const [phrases, mode] of MODES) if (phrases.some((p) => lower.includes(p))) return mode
    const raw = /([\p{L}][\p{L}\p{N} -]*?)\s+on\s+\(shift\+tab/u.exec(lower)
    if (raw) {
      const label = raw[1].replace(/\s+mode$/, '').trim()
      if (label) return label
    }
  }
  return undefined
}

export const claudeScreen: ScreenCapability = {
  confirmKey: 'enter',
  parse: parseClaudeScreen,
  summarize: summarizeClaude,
  modes: {
    read: claudePermissionMode,
    // Back-tab as raw bytes: herdr's `shift+tab` key name does not reach claude as a mode switch.
    cycleInput: '\x1b[Z',
    // The ring of a default start; `bypassPermissions` and `auto` join it only when enabled.
    known: ['default', 'acceptEdits', 'plan'],
  },
}

function findLastIndex<T>(a: T[], p: (x: T) => boolean): number {
  for (let i = a.length - 1; i >= 0; i--) if (p(a[i])) return i
  return -1
}
