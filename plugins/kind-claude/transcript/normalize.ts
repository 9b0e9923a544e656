/** One claude JSONL line → 0..n transcript entries (docs/agent-kinds.md). Never throws. */
import {
  normalizeJsonLine,
  basename,
  cap,
  capRunes,
  field,
  isObj,
  oneLine,
  str,
  stripAnsi,
  OUTPUT_CAP,
  SUBTITLE_CAP,
  SUMMARY_CAP,
  TEXT_CAP,
  type RawEntry,
  type Role,
  type ToolInfo,
  type ToolResult,
  diffForEdit,
  diffForWrite,
  diffFromStructuredPatch,
} from '../../../lib/kit.ts'

const DROPPED = new Set([
  'ai-title',
  'agent-name',
  'mode',
  'permission-mode',
  'file-history-snapshot',
  'file-history-delta',
  'last-prompt',
  'pr-link',
  'attachment',
  // Claude's own bookkeeping lines that never carry conversation.
  'summary',
  'custom-title',
  // Claude Code 2.x: hook, Bash and subagent progress ticks (about 70% of a real session's lines);
  // the conversation they report is in the user/assistant lines and the subagent's own file.
  'progress',
])

/** `system` subtypes that are bookkeeping, whatever their content says. */
const DROPPED_SYSTEM = new Set(['compact_boundary', 'turn_duration', 'stop_hook_summary'])

/** The summary line a compaction starts the new context with: shown as one system entry. */
const isCompactSummary = (o: Record<string, unknown>) => o.type === 'user' && o.isCompactSummary === true

/** The summary text of a compaction line (string content or its text blocks). */
function compactText(o: Record<string, unknown>): string {
  const c = field(o.message, 'content')
  if (typeof c === 'string') return c.trim()
  if (!Array.isArray(c)) return ''
  return c
    .filter((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('\n')
    .trim()
}

export function normalizeClaudeLine(line: string): RawEntry[] {
  return normalizeJsonLine(line, normalizeObject)
}

/**
 * How many entries `normalizeClaudeLine(line)` yields, without building them: the index pass
 * counts every line of a file that can be hundreds of MB, and building entries (diffs, caps)
 * costs ten times the JSON parse. Mirrors the rules above; a property test pins the two together.
 */
export function countClaudeLine(line: string): number {
  let o: unknown
  try {
    o = JSON.parse(line)
  } catch {
    return 1
  }
  if (!isObj(o)) return 1
  const type = str(o.type) ?? ''
  if (DROPPED.has(type)) return 0
  const blank = (v: unknown) => typeof v !== 'string' || !v.trim()
  switch (type) {
    case 'queue-operation':
      return o.operation === 'remove' && !blank(o.content) ? 1 : 0
    case 'system': {
      if (DROPPED_SYSTEM.has(str(o.subtype) ?? '')) return 0
      const content = str(o.content)
      return content !== undefined && content.replace(/<[^>]*>/g, '').trim() ? 1 : 0
    }
    case 'assistant': {
      const content = field(o.message, 'content')
      if (typeof content === 'string') return content.trim() ? 1 : 0
      if (!Array.isArray(content)) return 1
      let n = 0
      for (const b of content) {
        if (!isObj(b)) n++
        else if (b.type === 'text') n += blank(b.text) ? 0 : 1
        else if (b.type === 'thinking') n += blank(b.thinking) ? 0 : 1
        else if (b.type !== 'redacted_thinking') n++
      }
      return n
    }
    case 'user': {
      if (isCompactSummary(o)) return compactText(o) ? 1 : 0
      if (!isObj(o.message)) return 1
      const content = o.message.content
      if (typeof content === 'string') return content.trim() ? 1 : 0
      if (!Array.isArray(content)) return 1
      let n = 0
      for (const b of content) n += isObj(b) && b.type === 'text' && blank(b.text) ? 0 : 1
      return n
    }
    default:
      return 1
  }
}

function normalizeObject(o: Record<string, unknown>): RawEntry[] {
  const type = str(o.type) ?? ''
  if (DROPPED.has(type)) return []
  const uuid = str(o.uuid) ?? ''
  const base = (block: number) => {
    const e: Pick<RawEntry, 'id' | 'parent_id' | 'ts'> = { id: uuid ? `${uuid}#${block}` : '' }
    if (typeof o.parentUuid === 'string' && o.parentUuid) e.parent_id = o.parentUuid
    if (typeof o.timestamp === 'string' && o.timestamp) e.ts = o.timestamp
    return e
  }
  switch (type) {
    case 'queue-operation': {
      const content = str(o.content)
      if (o.operation !== 'remove' || !content?.trim()) return []
      return [{ ...base(0), role: 'user', kind: 'message', text: body(content), parsed: true }]
    }
    case 'assistant':
      return assistant(o, base)
    case 'user':
      return user(o, base)
    case 'system': {
      if (DROPPED_SYSTEM.has(str(o.subtype) ?? '')) return []
      const content = str(o.content)
      if (content === undefined) return []
      const t = content.replace(/<[^>]*>/g, '').trim()
      if (!t) return []
      return [{ ...base(0), role: 'system', kind: 'message', text: body(t), parsed: true }]
    }
    default: {
      const r = field(o.message, 'role')
      return [{ ...unparsed(r === 'user' || r === 'assistant' ? r : 'system'), ...base(0) }]
    }
  }
}

type Base = (block: number) => Pick<RawEntry, 'id' | 'parent_id' | 'ts'>

function assistant(o: Record<string, unknown>, base: Base): RawEntry[] {
  const content = field(o.message, 'content')
  if (typeof content === 'string') return content.trim() ? [{ ...base(0), role: 'assistant', kind: 'message', text: body(content), parsed: true }] : []
  if (!Array.isArray(content)) return [{ ...unparsed('assistant'), ...base(0) }]
  const out: RawEntry[] = []
  content.forEach((b, i) => {
    if (!isObj(b)) return out.push({ ...unparsed('assistant'), ...base(i) })
    if (b.type === 'text') {
      if (typeof b.text === 'string' && b.text.trim()) out.push({ ...base(i), role: 'assistant', kind: 'message', text: body(b.text), parsed: true })
    } else if (b.type === 'thinking') {
      // Observed versions store empty reasoning: nothing to show then.
      if (typeof b.thinking === 'string' && b.thinking.trim()) out.push({ ...base(i), role: 'assistant', kind: 'thinking', text: body(b.thinking), parsed: true })
    } else if (b.type === 'redacted_thinking') {
      // Encrypted reasoning: nothing readable.
    } else if (b.type === 'tool_use') {
      out.push({ ...base(i), role: 'assistant', kind: 'tool_call', tool: projectTool(b), parsed: true })
    } else out.push({ ...unparsed('assistant'), ...base(i) })
  })
  return out
}

function user(o: Record<string, unknown>, base: Base): RawEntry[] {
  if (isCompactSummary(o)) {
    // One entry for a compaction: its summary, said by the system (nobody typed it).
    const t = compactText(o)
    return t ? [{ ...base(0), role: 'system', kind: 'message', text: body(`Conversation compacted. ${t}`), parsed: true }] : []
  }
  if (!isObj(o.message)) return [{ ...unparsed('user'), ...base(0) }]
  const content = o.message.content
  if (typeof content === 'string') return content.trim() ? [{ ...base(0), role: 'user', kind: 'message', text: body(content), parsed: true }] : []
  if (!Array.isArray(content)) return [{ ...unparsed('user'), ...base(0) }]
  // toolUseResult describes the line's result; attribute it only when unambiguous.
  const results = content.filter((b) => isObj(b) && b.type === 'tool_result').length
  const out: RawEntry[] = []
  content.forEach((b, i) => {
    if (!isObj(b)) return out.push({ ...unparsed('user'), ...base(i) })
    if (b.type === 'text') {
      if (typeof b.text === 'string' && b.text.trim()) out.push({ ...base(i), role: 'user', kind: 'message', text: body(b.text), parsed: true })
    } else if (b.type === 'tool_result') {
      out.push({ ...base(i), role: 'user', kind: 'tool_result', result: projectResult(b, results === 1 ? o.toolUseResult : undefined), parsed: true })
    } else if (b.type === 'image') {
      out.push({ ...base(i), role: 'user', kind: 'attachment', text: '[image]', parsed: true })
    } else out.push({ ...unparsed('user'), ...base(i) })
  })
  return out
}

export function projectTool(b: Record<string, unknown>): ToolInfo {
  const name = str(b.name) ?? ''
  const input = isObj(b.input) ? b.input : {}
  const tool: ToolInfo = { id: str(b.id) ?? '', name, title: name }
  switch (name) {
    case 'Bash': {
      const command = str(input.command)
      if (command !== undefined) {
        tool.command = command
        tool.input_summary = oneLine(command, SUMMARY_CAP)
      }
      const desc = str(input.description)
      if (desc?.trim()) tool.subtitle = oneLine(desc, SUBTITLE_CAP)
      break
    }
    case 'Edit':
    case 'Write':
    case 'Read': {
      const path = str(input.file_path)
      if (path) {
        tool.file = basename(path)
        tool.input_summary = oneLine(path, SUMMARY_CAP)
      }
      let d
      if (name === 'Edit' && typeof input.old_string === 'string' && typeof input.new_string === 'string') d = diffForEdit(input.old_string, input.new_string)
      if (name === 'Write' && typeof input.content === 'string') d = diffForWrite(input.content)
      if (d) {
        tool.diff = d.diff
        if (d.truncated) tool.diff_truncated = true
      }
      break
    }
    case 'AskUserQuestion': {
      // A question with its options, not the call's JSON.
      const qs = questionsOf(input)
      if (qs.length) {
        tool.title = oneLine(qs.map((q) => q.question).join(' / '), SUMMARY_CAP)
        tool.input_summary = oneLine(qs.map((q) => (qs.length > 1 ? `${q.question}: ` : '') + q.options.join(' | ')).join(' / '), SUMMARY_CAP)
        const header = qs.map((q) => q.header).filter(Boolean)
        if (header.length) tool.subtitle = oneLine(header.join(' / '), SUBTITLE_CAP)
      }
      break
    }
    default:
      tool.input_summary = oneLine(safeJson(b.input ?? {}), SUMMARY_CAP)
  }
  for (const k of ['title', 'input_summary', 'diff'] as const) if (tool[k] === '') delete tool[k]
  return tool
}

export function projectResult(b: Record<string, unknown>, tur: unknown): ToolResult {
  const result: ToolResult = { for_id: str(b.tool_use_id) ?? '', ok: b.is_error !== true }
  let output = ''
  let truncated = false
  if (isObj(tur)) {
    if (tur.interrupted === true) result.ok = false
    const d = diffFromStructuredPatch(tur.structuredPatch)
    if (d) {
      result.diff = d.diff
      truncated ||= d.truncated
    }
    const stdout = str(tur.stdout) ?? ''
    const stderr = str(tur.stderr) ?? ''
    output = stdout
    if (stderr.trim()) output += (stdout ? '\n' : '') + '[stderr] ' + stderr
  } else if (typeof tur === 'string') output = tur
  // AskUserQuestion's answer: "question → answer" per question, not the tool's sentence around it.
  if (isObj(tur) && isObj(tur.answers)) output = answersText(tur.answers)
  if (!output && !result.diff) output = inlineContent(b.content)
  output = stripAnsi(output).trim()
  if (output) {
    const c = capRunes(output, OUTPUT_CAP)
    result.output_summary = c.text
    truncated ||= c.cut
  }
  if (truncated) result.truncated = true
  return result
}

interface Question {
  question: string
  header: string
  options: string[]
}

function questionsOf(input: Record<string, unknown>): Question[] {
  if (!Array.isArray(input.questions)) return []
  return input.questions.filter(isObj).map((q) => ({
    question: str(q.question) ?? '',
    header: str(q.header) ?? '',
    options: Array.isArray(q.options) ? q.options.map((o: unknown) => (isObj(o) ? (str(o.label) ?? '') : typeof o === 'string' ? o : '')).filter(Boolean) : [],
  }))
}

function answersText(answers: Record<string, unknown>): string {
  return Object.entries(answers)
    .map(([q, a]) => `${q} → ${Array.isArray(a) ? a.join(', ') : String(a)}`)
    .join('\n')
}

function inlineContent(c: unknown): string {
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) return ''
  const parts: string[] = []
  for (const b of c) {
    if (!isObj(b)) continue
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text)
    else if (b.type === 'image') parts.push('[image]')
  }
  return parts.join('\n')
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? ''
  } catch {
    return ''
  }
}

const body = (s: string) => cap(s.trim(), TEXT_CAP)

function unparsed(role: Role): RawEntry {
  return { id: '', role, kind: 'message', parsed: false }
}
