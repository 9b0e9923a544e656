/**
 * One codex rollout line → 0..n transcript entries (docs/agent-kinds.md). Never throws.
 *
 * A rollout line is `{timestamp, type, payload}`: `session_meta`, `turn_context` and `event_msg`
 * carry no conversation of their own (event_msg repeats the messages as UI events); a
 * `response_item` payload is what the model saw and said. Files written before the wrapper
 * existed hold bare items (`{type: "message", …}`) after a bare `{id, timestamp}` meta line.
 */
import {
  basename,
  cap,
  capDiff,
  capRunes,
  field,
  isObj,
  normalizeJsonLine,
  oneLine,
  parseJsonRecord,
  str,
  stripAnsi,
  OUTPUT_CAP,
  SUMMARY_CAP,
  TEXT_CAP,
  type RawEntry,
  type Role,
  type ToolInfo,
  type ToolResult,
} from '../../../lib/kit.ts'

const ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'ghost_snapshot',
  'compaction',
  'compaction_summary',
])
const SILENT = new Set(['session_meta', 'turn_context', 'event_msg'])
const NO_ENTRY_ITEMS = new Set(['ghost_snapshot', 'compaction', 'compaction_summary'])

/** Text codex injects as a user message: instructions, environment, modes — never typed by anyone. */
const INJECTED = ['# AGENTS.md instructions for ', '<user_instructions>', '<environment_context>', '<collaboration_mode>', '<skill', '<INSTRUCTIONS>', '<permissions instructions>']

/** Tools whose arguments are a shell command. */
const SHELL_TOOLS = new Set(['shell', 'container.exec', 'shell_command', 'exec_command', 'local_shell'])

export function normalizeCodexLine(line: string): RawEntry[] {
  return normalizeJsonLine(line, normalizeRecord)
}

/**
 * How many entries `normalizeCodexLine(line)` yields, without building them (the index pass over
 * a rollout of hundreds of MB skips the nested JSON of arguments and outputs). Mirrors the rules
 * below; a property test pins the two together.
 */
export function countCodexLine(line: string): number {
  const o = parseJsonRecord(line)
  if (!o) return 1
  const type = str(o.type)
  if (type === 'response_item') return isObj(o.payload) ? countItem(o.payload) : 1
  if (type === 'compacted') return 1
  if (type && SILENT.has(type)) return 0
  if (type && ITEM_TYPES.has(type)) return countItem(o)
  if (type === undefined && (o.record_type !== undefined || (typeof o.id === 'string' && typeof o.timestamp === 'string'))) return 0
  return 1
}

function countItem(p: Record<string, unknown>): number {
  const blank = (v: unknown) => typeof v !== 'string' || !v.trim()
  switch (p.type) {
    case 'message': {
      if (p.role !== 'user' && p.role !== 'assistant') return 0
      if (!Array.isArray(p.content)) return typeof p.content === 'string' && p.content.trim() ? 1 : 0
      let n = 0
      for (const c of p.content) {
        if (!isObj(c)) continue
        if (c.type === 'input_text' || c.type === 'output_text' || c.type === 'text') n += blank(c.text) || (p.role === 'user' && isInjected(str(c.text) ?? '')) ? 0 : 1
        else n++
      }
      return n
    }
    case 'reasoning':
      return Array.isArray(p.summary) && p.summary.some((x: unknown) => isObj(x) && !blank(x.text)) ? 1 : 0
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call':
    case 'web_search_call':
    case 'function_call_output':
    case 'custom_tool_call_output':
      return 1
    default:
      return NO_ENTRY_ITEMS.has(str(p.type) ?? '') ? 0 : 1
  }
}

function normalizeRecord(o: Record<string, unknown>): RawEntry[] {
  const type = str(o.type)
  if (type === 'response_item') return isObj(o.payload) ? item(o.payload, str(o.timestamp)) : [unparsed('system')]
  if (type === 'compacted') return [{ id: '', ...ts(str(o.timestamp)), role: 'system', kind: 'message', text: 'Conversation compacted', parsed: true }]
  if (type && SILENT.has(type)) return []
  // Older files: bare items, a bare meta line first, `{record_type: "state"}` bookkeeping.
  if (type && ITEM_TYPES.has(type)) return item(o, undefined)
  if (type === undefined && (o.record_type !== undefined || (typeof o.id === 'string' && typeof o.timestamp === 'string'))) return []
  return [unparsed('system')]
}

const ts = (t: string | undefined) => (t ? { ts: t } : {})

function item(p: Record<string, unknown>, t: string | undefined): RawEntry[] {
  const base = { id: '', ...ts(t) }
  switch (p.type) {
    case 'message':
      return message(p, base)
    case 'reasoning': {
      // Only the readable summary; the reasoning itself is encrypted.
      const parts = Array.isArray(p.summary) ? (p.summary as unknown[]).map((s) => (isObj(s) ? (str(s.text) ?? '') : '')).filter((s: string) => s.trim()) : []
      return parts.length ? [{ ...base, role: 'assistant', kind: 'thinking', text: body(parts.join('\n\n')), parsed: true }] : []
    }
    case 'function_call':
      return [{ ...base, role: 'assistant', kind: 'tool_call', tool: functionCall(str(p.name) ?? '', str(p.arguments) ?? '', str(p.call_id) ?? ''), parsed: true }]
    case 'custom_tool_call':
      return [{ ...base, role: 'assistant', kind: 'tool_call', tool: customCall(str(p.name) ?? '', str(p.input) ?? '', str(p.call_id) ?? ''), parsed: true }]
    case 'local_shell_call': {
      const command = commandOf(field(p.action, 'command'))
      const tool: ToolInfo = { id: str(p.call_id) ?? str(p.id) ?? '', name: 'local_shell', title: 'local_shell' }
      if (command) Object.assign(tool, { command, input_summary: oneLine(command, SUMMARY_CAP) })
      return [{ ...base, role: 'assistant', kind: 'tool_call', tool, parsed: true }]
    }
    case 'web_search_call': {
      const a = isObj(p.action) ? p.action : {}
      const what = str(a.query) ?? str(a.url) ?? ''
      const tool: ToolInfo = { id: str(p.id) ?? '', name: 'web_search', title: 'web_search' }
      if (what) tool.input_summary = oneLine(what, SUMMARY_CAP)
      return [{ ...base, role: 'assistant', kind: 'tool_call', tool, parsed: true }]
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
      return [{ ...base, role: 'user', kind: 'tool_result', result: toolResult(str(p.call_id) ?? '', p.output), parsed: true }]
    default:
      if (NO_ENTRY_ITEMS.has(str(p.type) ?? '')) return []
      return [unparsed(p.role === 'user' || p.role === 'assistant' ? p.role : 'system')]
  }
}

function message(p: Record<string, unknown>, base: { id: string; ts?: string }): RawEntry[] {
  const role = p.role
  // developer / system messages are the harness talking to the model.
  if (role !== 'user' && role !== 'assistant') return []
  if (!Array.isArray(p.content)) return typeof p.content === 'string' && p.content.trim() ? [{ ...base, role, kind: 'message', text: body(p.content), parsed: true }] : []
  const out: RawEntry[] = []
  for (const c of p.content) {
    if (!isObj(c)) continue
    if (c.type === 'input_text' || c.type === 'output_text' || c.type === 'text') {
      const text = str(c.text) ?? ''
      if (!text.trim() || (role === 'user' && isInjected(text))) continue
      out.push({ ...base, role, kind: 'message', text: body(text), parsed: true })
    } else if (c.type === 'input_image') out.push({ ...base, role, kind: 'attachment', text: '[image]', parsed: true })
    else out.push({ ...base, role, kind: 'message', parsed: false })
  }
  return out
}

export function isInjected(text: string): boolean {
  const t = text.trimStart()
  return INJECTED.some((m) => t.startsWith(m))
}

/** A shell argument vector as one line: `bash -lc "<script>"` is the script itself. */
export function commandOf(v: unknown): string {
  if (typeof v === 'string') return v.trim()
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return ''
  const argv = v as string[]
  if (argv.length === 3 && /(^|\/)(ba|z|)sh$/.test(argv[0]) && /^-l?c$/.test(argv[1])) return argv[2].trim()
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')
}

function functionCall(name: string, args: string, callId: string): ToolInfo {
  const tool: ToolInfo = { id: callId, name, title: name }
  let parsed: unknown
  try {
    parsed = JSON.parse(args)
  } catch {}
  if (SHELL_TOOLS.has(name) && isObj(parsed)) {
    const command = commandOf(parsed.command ?? parsed.cmd)
    if (command) {
      tool.command = command
      tool.input_summary = oneLine(command, SUMMARY_CAP)
      const why = str(parsed.justification)
      if (why?.trim()) tool.subtitle = oneLine(why, 120)
      return tool
    }
  }
  if (name === 'apply_patch' && isObj(parsed) && typeof parsed.input === 'string') return patchCall(tool, parsed.input)
  if (args.trim()) tool.input_summary = oneLine(args, SUMMARY_CAP)
  return tool
}

function customCall(name: string, input: string, callId: string): ToolInfo {
  const tool: ToolInfo = { id: callId, name, title: name }
  if (name === 'apply_patch') return patchCall(tool, input)
  if (input.trim()) tool.input_summary = oneLine(input, SUMMARY_CAP)
  return tool
}

const PATCH_FILE = /^\*\*\* (Add|Update|Delete) File: (.+)$/

/** codex's patch envelope: the files it touches, and its hunks as a unified diff. */
function patchCall(tool: ToolInfo, patch: string): ToolInfo {
  const files: string[] = []
  const lines: string[] = []
  for (const l of patch.split('\n')) {
    const m = PATCH_FILE.exec(l.trimEnd())
    if (m) {
      files.push(m[2].trim())
      if (files.length > 1) lines.push(`@@ ${m[2].trim()} @@`)
      continue
    }
    if (/^\*\*\* (Begin|End) Patch|^\*\*\* Move to: |^\*\*\* End of File/.test(l)) continue
    if (/^[-+ @]/.test(l) || l === '') lines.push(l)
  }
  if (files.length) {
    tool.file = basename(files[0])
    tool.input_summary = oneLine(files.join(' '), SUMMARY_CAP)
  }
  const d = capDiff(lines)
  if (d.diff.trim()) {
    tool.diff = d.diff
    if (d.truncated) tool.diff_truncated = true
  }
  return tool
}

/**
 * A tool's output: a string (plain, a JSON `{output, metadata: {exit_code}}`, or an
 * `Exit code: N … Output:` block), content items, or `{content, success}`.
 */
export function toolResult(callId: string, out: unknown): ToolResult {
  const result: ToolResult = { for_id: callId, ok: true }
  let text = ''
  if (typeof out === 'string') {
    text = out
    const t = out.trimStart()
    if (t.startsWith('{')) {
      try {
        const j = JSON.parse(t)
        if (isObj(j) && typeof j.output === 'string') {
          text = j.output
          const code = field(j.metadata, 'exit_code')
          if (typeof code === 'number') result.ok = code === 0
        }
      } catch {}
    } else {
      const m = /^Exit code: (-?\d+)\n(?:[^\n]*\n)*?Output:\n?/.exec(t)
      // Unified exec (exec_command / write_stdin, codex 0.10x and later): a `Chunk ID:` header
      // that says `Process exited with code N` once the process ended, then `Output:`.
      const u = m ? null : /^Chunk ID: [^\n]*\n(?:[^\n]*\n)*?Output:\n?/.exec(t)
      if (m) {
        result.ok = Number(m[1]) === 0
        text = t.slice(m[0].length)
      } else if (u) {
        const code = /^Process exited with code (-?\d+)$/m.exec(u[0])
        if (code) result.ok = Number(code[1]) === 0
        text = t.slice(u[0].length)
      }
    }
  } else if (Array.isArray(out)) {
    text = out
      .map((c) => (isObj(c) ? (c.type === 'input_image' ? '[image]' : (str(c.text) ?? '')) : ''))
      .filter(Boolean)
      .join('\n')
  } else if (isObj(out)) {
    text = str(out.content) ?? ''
    if (out.success === false) result.ok = false
  }
  text = stripAnsi(text).trim()
  if (text) {
    const c = capRunes(text, OUTPUT_CAP)
    result.output_summary = c.text
    if (c.cut) result.truncated = true
  }
  return result
}

const body = (s: string) => cap(s.trim(), TEXT_CAP)

function unparsed(role: Role): RawEntry {
  return { id: '', role, kind: 'message', parsed: false }
}
