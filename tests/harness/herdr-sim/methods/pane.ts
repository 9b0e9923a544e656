// pane.* — topology, I/O and the agent-reporting integration methods.
import { releaseAgent, reportAgent, reportAgentSession, setPresentation } from '../agents.ts'
import { ApiError } from '../errors.ts'
import { encodeKey, parseKeys } from '../keys.ts'
import { findWorkspace, paneOrThrow } from '../resolve.ts'
import type { Pane, SessionState } from '../state.ts'
import type { ReadSource } from '../terminal.ts'
import { checkCwd, checkEnv } from './common.ts'
import { STREAMING, ok, type MethodTable, type Result } from './types.ts'

export async function readResult(pane: Pane, source: ReadSource, format: 'text' | 'ansi' | undefined, lines: number | null | undefined): Promise<Record<string, unknown>> {
  await pane.terminal.settled()
  const fmt = format ?? 'text'
  const { text, truncated } = pane.terminal.read(source, fmt, lines ?? undefined)
  return {
    pane_id: pane.id,
    workspace_id: pane.ws.id,
    tab_id: pane.tab.id,
    source,
    format: fmt,
    text,
    revision: 0,
    truncated,
  }
}

export function wrapPaste(pane: Pane, text: string): string {
  return pane.terminal.bracketedPaste ? `\x1b[200~${text}\x1b[201~` : text
}

export function writeOrFail(pane: Pane, data: string): void {
  try {
    pane.terminal.write(data)
  } catch (err) {
    throw new ApiError('pane_send_failed', `failed to send input to pane ${pane.id}: ${(err as Error).message}`)
  }
}

export function encodeKeysOrThrow(pane: Pane, keys: string[]): string[] {
  const parsed = parseKeys(keys)
  if (!parsed.ok) throw new ApiError('invalid_key', `unsupported key ${parsed.bad}`)
  const modes = { applicationCursor: pane.terminal.applicationCursor }
  return parsed.keys.map((k) => encodeKey(k, modes))
}

function defaultPane(s: SessionState, paneId: string | null | undefined): Pane {
  if (paneId) return paneOrThrow(s, paneId)
  const focused = s.focusedPane()
  if (!focused) throw new ApiError('pane_not_found', 'pane not found')
  return focused
}

/** Line-by-line matcher for wait_for_output and pane.output_matched. */
export function lineMatcher(match: { type: 'substring' | 'regex'; value: string }): (line: string) => boolean {
  if (match.type === 'substring') return (line) => line.includes(match.value)
  let re: RegExp
  try {
    re = new RegExp(match.value, 'u')
  } catch (err) {
    throw new ApiError('invalid_regex', `invalid regex ${JSON.stringify(match.value)}: ${(err as Error).message}`)
  }
  return (line) => re.test(line)
}

export const paneMethods: MethodTable = {
  'pane.list': (p, { s }) => {
    let panes = s.allPanes()
    if (p.workspace_id) {
      const ws = findWorkspace(s, p.workspace_id)
      if (!ws) throw new ApiError('workspace_not_found', `workspace ${p.workspace_id} not found`)
      panes = ws.panes
    }
    return { type: 'pane_list', panes: panes.map((x) => s.info.pane(x)) }
  },

  'pane.get': (p, { s }) => ({ type: 'pane_info', pane: s.info.pane(paneOrThrow(s, p.pane_id)) }),

  'pane.current': (p, { s }) => ({ type: 'pane_current', pane: s.info.pane(defaultPane(s, p.caller_pane_id)) }),

  'pane.layout': (p, { s }) => ({ type: 'pane_layout', layout: s.info.layout(defaultPane(s, p.pane_id).tab) }),

  // The target is `target_pane_id`; a `pane_id` key is ignored, as in herdr.
  'pane.split': (p, { s }) => {
    let target: Pane | undefined
    if (p.target_pane_id) target = paneOrThrow(s, p.target_pane_id)
    else if (p.workspace_id) target = findWorkspace(s, p.workspace_id)?.activeTab.focused
    else target = s.focusedPane()
    if (!target) throw new ApiError('pane_not_found', 'pane not found')
    const cwd = checkCwd(p.cwd, 'pane_split_failed')
    const env = checkEnv(p.env)
    const pane = s.split(target, p.direction, { cwd, env, ratio: p.ratio ?? undefined, focus: p.focus === true })
    return { type: 'pane_info', pane: s.info.pane(pane) }
  },

  'pane.close': (p, { s }) => {
    s.closePane(paneOrThrow(s, p.pane_id))
    return ok()
  },

  'pane.focus': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    s.focusPane(pane)
    return { type: 'pane_info', pane: s.info.pane(pane) }
  },

  // herdr publishes nothing for a pane rename.
  'pane.rename': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    pane.label = typeof p.label === 'string' && p.label.trim() !== '' ? p.label : undefined
    return { type: 'pane_info', pane: s.info.pane(pane) }
  },

  'pane.read': async (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    return { type: 'pane_read', read: await readResult(pane, p.source, p.format, p.lines) }
  },

  'pane.send_text': (p, { s }) => {
    writeOrFail(paneOrThrow(s, p.pane_id), p.text)
    return ok()
  },

  // Every key is validated before anything is written; then each key is its own write.
  'pane.send_keys': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    const encoded = encodeKeysOrThrow(pane, p.keys)
    for (const bytes of encoded) if (bytes) writeOrFail(pane, bytes)
    return ok()
  },

  // Text (bracketed when the app asked for it) and keys go out as one write.
  'pane.send_input': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    const keys = encodeKeysOrThrow(pane, p.keys ?? [])
    const text = typeof p.text === 'string' && p.text !== '' ? wrapPaste(pane, p.text) : ''
    const data = text + keys.join('')
    if (data) writeOrFail(pane, data)
    return ok()
  },

  'pane.process_info': (p, { s }) => {
    const pane = defaultPane(s, p.pane_id)
    const info: Record<string, unknown> = { pane_id: pane.id }
    if (!pane.terminal.exited) {
      info.shell_pid = pane.terminal.pid
      const pgid = pane.terminal.foregroundProcessGroup()
      if (pgid !== undefined) info.foreground_process_group_id = pgid
      info.foreground_processes = pane.terminal.foregroundProcesses().map((proc) => {
        const out: Record<string, unknown> = { pid: proc.pid, name: proc.name }
        if (proc.argv.length > 0) {
          out.argv0 = proc.argv[0]
          out.argv = proc.argv
          out.cmdline = proc.argv.join(' ')
        }
        if (proc.cwd) out.cwd = proc.cwd
        return out
      })
    }
    return { type: 'pane_process_info', process_info: info }
  },

  'pane.report_agent': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    reportAgent(s, pane, {
      source: p.source,
      agent: p.agent,
      state: p.state,
      agentSessionId: p.agent_session_id ?? undefined,
      agentSessionPath: p.agent_session_path ?? undefined,
      message: p.message ?? undefined,
    })
    return ok()
  },

  'pane.report_agent_session': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    reportAgentSession(s, pane, p.source, p.agent, p.agent_session_id ?? undefined, p.agent_session_path ?? undefined)
    return ok()
  },

  'pane.release_agent': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    // Only the source that holds authority (or a matching label) can release it.
    if (pane.agentSource === p.source || pane.agentLabel === p.agent) releaseAgent(s, pane)
    return ok()
  },

  'pane.clear_agent_authority': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    if (!p.source || pane.agentSource === p.source) pane.agentSource = undefined
    return ok()
  },

  'pane.report_metadata': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    setPresentation(s, pane, {
      title: p.clear_title ? '' : (p.title ?? undefined),
      displayAgent: p.clear_display_agent ? '' : (p.display_agent ?? undefined),
      stateLabels: p.clear_state_labels ? {} : (p.state_labels ?? undefined),
    })
    return ok()
  },

  'pane.wait_for_output': async (p, ctx) => {
    const pane = paneOrThrow(ctx.s, p.pane_id)
    const test = lineMatcher(p.match)
    const source: ReadSource = p.source === 'recent' ? 'recent_unwrapped' : p.source
    const deadline = p.timeout_ms != null ? Date.now() + p.timeout_ms : Infinity
    const check = async (): Promise<Result | undefined> => {
      const read = await readResult(pane, source, 'text', p.lines)
      const line = String(read.text)
        .split('\n')
        .find((l) => test(l))
      if (line === undefined) return undefined
      return { type: 'output_matched', pane_id: pane.id, revision: 0, matched_line: line, read }
    }
    const first = await check()
    if (first) return first
    const conn = ctx.conn
    const timer = setInterval(async () => {
      if (conn.gone) return void clearInterval(timer)
      if (pane.removed) {
        clearInterval(timer)
        return conn.reply({ id: ctx.id, error: { code: 'pane_not_found', message: `pane ${p.pane_id} not found` } })
      }
      const hit = await check()
      if (hit) {
        clearInterval(timer)
        conn.reply({ id: ctx.id, result: hit })
      } else if (Date.now() >= deadline) {
        clearInterval(timer)
        conn.reply({ id: ctx.id, error: { code: 'timeout', message: `timed out waiting for output in pane ${pane.id}` } })
      }
    }, 100)
    conn.onGone(() => clearInterval(timer))
    return STREAMING
  },
}
