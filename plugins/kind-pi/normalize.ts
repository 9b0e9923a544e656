/**
 * One pi session line (`~/.pi/agent/sessions/…/*.jsonl`, format v3) → 0..n entries, in the same
 * schema and with the same caps as claude. Never throws.
 */
import {
  basename,
  cap,
  capRunes,
  isObj,
  normalizeJsonLine,
  oneLine,
  str,
  stripAnsi,
  OUTPUT_CAP,
  SUMMARY_CAP,
  TEXT_CAP,
  type RawEntry,
  type ToolInfo,
  type ToolResult,
  diffForEdit,
  diffForWrite,
} from '../../lib/kit.ts'

/** Session bookkeeping that carries no conversation. */
const DROPPED = new Set(['session', 'model_change', 'thinking_level_change', 'custom', 'label', 'session_info'])

export function normalizePiLine(line: string): RawEntry[] {
  return normalizeJsonLine(line, normalizeObject)
}

type Base = (block: number) => Pick<RawEntry, 'id' | 'parent_id' | 'ts'>

function normalizeObject(o: Record<string, unknown>): RawEntry[] {
  const type = str(o.type) ?? ''
  if (DROPPED.has(type)) return []
  const id = str(o.id) ?? ''
  const base: Base = (block) => {
    const e: Pick<RawEntry, 'id' | 'parent_id' | 'ts'> = { id: id ? `${id}#${block}` : '' }
    if (typeof o.parentId === 'string' && o.parentId) e.parent_id = o.parentId
    if (typeof o.timestamp === 'string' && o.timestamp) e.ts = o.timestamp
    return e
  }
  const sys = (t: unknown): RawEntry[] => (typeof t === 'string' && t.trim() ? [{ ...base(0), role: 'system', kind: 'message', text: body(t), parsed: true }] : [])
  switch (type) {
    case 'message':
      return message(o.message, base)
    case 'compaction':
      // Shown like claude's and codex's compactions: one summary entry.
      return typeof o.summary === 'string' && o.summary.trim() ? sys(`Conversation compacted. ${o.summary.trim()}`) : []
    case 'branch_summary':
      return sys(o.summary)
    case 'custom_message':
      return o.display === false ? [] : sys(typeof o.content === 'string' ? o.content : textOf(o.content))
    default:
      return [unparsed('system', base(0))]
  }
}

function message(m: unknown, base: Base): RawEntry[] {
  if (!isObj(m)) return [unparsed('system', base(0))]
  switch (m.role) {
    case 'user': {
      if (typeof m.content === 'string') return m.content.trim() ? [{ ...base(0), role: 'user', kind: 'message', text: body(m.content), parsed: true }] : []
      const out: RawEntry[] = []
      if (Array.isArray(m.content))
        m.content.forEach((b: unknown, i: number) => {
          if (isObj(b) && b.type === 'text' && typeof b.text === 'string') {
            if (b.text.trim()) out.push({ ...base(i), role: 'user', kind: 'message', text: body(b.text), parsed: true })
          } else if (isObj(b) && b.type === 'image') out.push({ ...base(i), role: 'user', kind: 'attachment', text: '[image]', parsed: true })
          else out.push(unparsed('user', base(i)))
        })
      return out
    }
    case 'assistant': {
      const out: RawEntry[] = []
      const blocks = Array.isArray(m.content) ? m.content.length : 0
      if (Array.isArray(m.content))
        m.content.forEach((b: unknown, i: number) => {
          if (!isObj(b)) return out.push(unparsed('assistant', base(i)))
          if (b.type === 'text') {
            if (typeof b.text === 'string' && b.text.trim()) out.push({ ...base(i), role: 'assistant', kind: 'message', text: body(b.text), parsed: true })
          } else if (b.type === 'thinking') {
            if (typeof b.thinking === 'string' && b.thinking.trim()) out.push({ ...base(i), role: 'assistant', kind: 'thinking', text: body(b.thinking), parsed: true })
          } else if (b.type === 'toolCall') out.push({ ...base(i), role: 'assistant', kind: 'tool_call', tool: projectPiTool(b), parsed: true })
          else out.push(unparsed('assistant', base(i)))
        })
      // A reply cut short (aborted, or a provider error) says why; often it is all the line holds.
      if ((m.stopReason === 'error' || m.stopReason === 'aborted') && typeof m.errorMessage === 'string' && m.errorMessage.trim())
        out.push({ ...base(blocks), role: 'system', kind: 'message', text: body(m.errorMessage), parsed: true })
      return out
    }
    case 'toolResult':
      return [{ ...base(0), role: 'user', kind: 'tool_result', result: result(str(m.toolCallId) ?? '', m.isError !== true, textOf(m.content)), parsed: true }]
    case 'bashExecution': {
      // A shell command the user ran with `!`: a call and its result.
      // Format-1 sessions give lines no id: the run's own timestamp keeps each call apart.
      const callId = base(0).id || `bash@${typeof m.timestamp === 'number' ? m.timestamp : (str(base(0).ts) ?? '')}`
      const command = str(m.command) ?? ''
      const tool: ToolInfo = { id: callId, name: 'bash', title: 'bash', command, input_summary: oneLine(command, SUMMARY_CAP) }
      const ok = m.cancelled !== true && (m.exitCode === 0 || m.exitCode === undefined)
      return [
        { ...base(0), role: 'user', kind: 'tool_call', tool, parsed: true },
        { ...base(1), role: 'user', kind: 'tool_result', result: result(callId, ok, str(m.output) ?? ''), parsed: true },
      ]
    }
    case 'branchSummary':
    case 'compactionSummary':
      return typeof m.summary === 'string' && m.summary.trim() ? [{ ...base(0), role: 'system', kind: 'message', text: body(m.summary), parsed: true }] : []
    default:
      return [unparsed('system', base(0))]
  }
}

export function projectPiTool(b: Record<string, unknown>): ToolInfo {
  const name = str(b.name) ?? ''
  const args = isObj(b.arguments) ? b.arguments : {}
  const tool: ToolInfo = { id: str(b.id) ?? '', name, title: name }
  const lname = name.toLowerCase()
  if (lname === 'bash' && typeof args.command === 'string') {
    tool.command = args.command
    tool.input_summary = oneLine(args.command, SUMMARY_CAP)
  } else if ((lname === 'read' || lname === 'edit' || lname === 'write') && typeof args.path === 'string') {
    tool.file = basename(args.path)
    tool.input_summary = oneLine(args.path, SUMMARY_CAP)
    let d
    if (lname === 'edit' && typeof args.oldText === 'string' && typeof args.newText === 'string') d = diffForEdit(args.oldText, args.newText)
    if (lname === 'write' && typeof args.content === 'string') d = diffForWrite(args.content)
    if (d) {
      tool.diff = d.diff
      if (d.truncated) tool.diff_truncated = true
    }
  } else {
    let json = ''
    try {
      json = JSON.stringify(b.arguments ?? {}) ?? ''
    } catch {}
    if (json) tool.input_summary = oneLine(json, SUMMARY_CAP)
  }
  if (!tool.title) delete tool.title
  if (!tool.input_summary) delete tool.input_summary
  return tool
}

function result(forId: string, ok: boolean, output: string): ToolResult {
  const r: ToolResult = { for_id: forId, ok }
  const o = stripAnsi(output).trim()
  if (o) {
    const c = capRunes(o, OUTPUT_CAP)
    r.output_summary = c.text
    if (c.cut) r.truncated = true
  }
  return r
}

function textOf(c: unknown): string {
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) return ''
  return c
    .map((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : isObj(b) && b.type === 'image' ? '[image]' : ''))
    .filter(Boolean)
    .join('\n')
}

const body = (s: string) => cap(s.trim(), TEXT_CAP)

function unparsed(role: RawEntry['role'], b: Pick<RawEntry, 'id' | 'parent_id' | 'ts'>): RawEntry {
  return { ...b, role, kind: 'message', parsed: false }
}
