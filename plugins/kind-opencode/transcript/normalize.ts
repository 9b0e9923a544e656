/**
 * opencode's stored parts → transcript entries. A part is final when opencode has finished
 * writing it: text and reasoning once their `time.end` is set (or the message completed), a
 * tool's call once its input is known (running), its result once it completed or failed.
 */
import {
  basename,
  cap,
  capRunes,
  compact,
  diffForEdit,
  diffForWrite,
  field,
  isObj,
  oneLine,
  str,
  stripAnsi,
  OUTPUT_CAP,
  SUMMARY_CAP,
  TEXT_CAP,
  type RawEntry,
  type ToolInfo,
} from '../../../lib/kit.ts'

export interface StoredMessage {
  id: string
  role: 'user' | 'assistant'
  created?: number
  completed: boolean
}

/** One entry a part yields, keyed so it is emitted once. */
export interface PartEntry {
  key: string
  entry: RawEntry
}

const iso = (ms: unknown) => (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : undefined)

/** The entries a part can give now (finished pieces only), each with its emit-once key. */
export function partEntries(msg: StoredMessage, part: Record<string, unknown>): PartEntry[] {
  const id = str(part.id) ?? ''
  const ts = iso(field(part.time, 'start')) ?? iso(field(field(part.state, 'time'), 'start')) ?? iso(msg.created)
  const base = (suffix = '') => compact({ id: id + suffix, ts }) as { id: string; ts?: string }
  const finished = msg.completed || msg.role === 'user' || typeof field(part.time, 'end') === 'number'
  switch (part.type) {
    case 'text': {
      const text = str(part.text) ?? ''
      // Synthetic parts are opencode talking to the model (file contents, reminders).
      if (part.synthetic === true || part.ignored === true || !text.trim() || !finished) return []
      return [{ key: `${id}:text`, entry: { ...base(), role: msg.role, kind: 'message', text: cap(text.trim(), TEXT_CAP), parsed: true } }]
    }
    case 'reasoning': {
      const text = str(part.text) ?? ''
      if (!text.trim() || !finished) return []
      return [{ key: `${id}:text`, entry: { ...base(), role: 'assistant', kind: 'thinking', text: cap(text.trim(), TEXT_CAP), parsed: true } }]
    }
    case 'file': {
      const mime = str(part.mime) ?? ''
      const name = str(part.filename) ?? ''
      return [{ key: `${id}:file`, entry: { ...base(), role: msg.role, kind: 'attachment', text: mime.startsWith('image/') ? '[image]' : `[file] ${name}`.trim(), parsed: true } }]
    }
    case 'tool':
      return toolEntries(part, base)
    case 'compaction':
      return [{ key: `${id}:compaction`, entry: { ...base(), role: 'system', kind: 'message', text: 'Conversation compacted', parsed: true } }]
    case 'step-start':
    case 'step-finish':
    case 'snapshot':
    case 'patch':
    case 'agent':
    case 'retry':
    case 'subtask':
      return []
    default:
      return [{ key: `${id}:unknown`, entry: { ...base(), role: msg.role, kind: 'message', parsed: false } }]
  }
}

function toolEntries(part: Record<string, unknown>, base: (suffix?: string) => { id: string; ts?: string }): PartEntry[] {
  const state = isObj(part.state) ? part.state : {}
  const status = str(state.status)
  if (status !== 'running' && status !== 'completed' && status !== 'error') return []
  const callId = str(part.callID) ?? str(part.id) ?? ''
  // The store sets a string id on every part; String() is what the template did with anything else.
  const partId = String(part.id)
  const out: PartEntry[] = [
    { key: `${partId}:call`, entry: { ...base(), role: 'assistant', kind: 'tool_call', tool: toolInfo(callId, str(part.tool) ?? '', state), parsed: true } },
  ]
  if (status === 'completed' || status === 'error') {
    const raw = status === 'error' ? (str(state.error) ?? '') : (str(state.output) ?? '')
    const text = stripAnsi(raw).trim()
    const result: NonNullable<RawEntry['result']> = { for_id: callId, ok: status === 'completed' }
    if (text) {
      const c = capRunes(text, OUTPUT_CAP)
      result.output_summary = c.text
      if (c.cut) result.truncated = true
    }
    const end = iso(field(state.time, 'end'))
    out.push({ key: `${partId}:result`, entry: { ...base('#result'), ...(end ? { ts: end } : {}), role: 'user', kind: 'tool_result', result, parsed: true } })
  }
  return out
}

function toolInfo(id: string, name: string, state: Record<string, unknown>): ToolInfo {
  const input = isObj(state.input) ? state.input : {}
  const tool: ToolInfo = { id, name, title: str(state.title)?.trim() || name }
  const file = str(input.filePath) ?? str(input.path)
  const command = str(input.command)
  if (name === 'bash' && command) {
    tool.command = command
    tool.input_summary = oneLine(command, SUMMARY_CAP)
    const description = str(input.description)
    if (description?.trim()) tool.subtitle = oneLine(description, 120)
    return tool
  }
  if (file) {
    tool.file = basename(file)
    tool.input_summary = oneLine(file, SUMMARY_CAP)
    const d =
      name === 'edit' && typeof input.oldString === 'string' && typeof input.newString === 'string'
        ? diffForEdit(input.oldString, input.newString)
        : name === 'write' && typeof input.content === 'string'
          ? diffForWrite(input.content)
          : undefined
    if (d) {
      tool.diff = d.diff
      if (d.truncated) tool.diff_truncated = true
    }
    return tool
  }
  let json = ''
  try {
    json = JSON.stringify(input) ?? ''
  } catch {}
  if (json && json !== '{}') tool.input_summary = oneLine(json, SUMMARY_CAP)
  return tool
}
