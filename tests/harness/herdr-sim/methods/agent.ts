// agent.* — named agents on top of panes (protocol doc 3.6).
import { AGENT_KINDS, effectiveStatus } from '../agents.ts'
import { PROFILE } from '../mode.ts'
import { explain } from '../detect.ts'
import { ApiError } from '../errors.ts'
import { hasAgent } from '../info.ts'
import { agentPaneOrThrow } from '../resolve.ts'
import type { AgentStatus, Pane } from '../state.ts'
import { encodeKeysOrThrow, readResult, wrapPaste, writeOrFail } from './pane.ts'
import { STREAMING, ok, type MethodContext, type MethodTable, type Result } from './types.ts'

const NAME_RE = /^[a-z][a-z0-9_-]{0,31}$/
const PROMPT_ENTER_DELAY_MS = 300
const DEFAULT_START_TIMEOUT_MS = 30000
const POLL_MS = 100

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}

function checkName(name: string): void {
  if (!NAME_RE.test(name)) throw new ApiError('invalid_agent_name', `invalid agent name ${name}: use [a-z][a-z0-9_-]{0,31}`)
}

/**
 * Polls every 100 ms until `done` returns a result, the occupant goes away, the deadline passes
 * or the client leaves (then silently). Replies on the held connection.
 */
function waitOn(ctx: MethodContext, pane: Pane, deadline: number, done: () => Result | ApiError | undefined): typeof STREAMING {
  const { conn } = ctx
  const epoch = pane.occupantEpoch
  const timer = setInterval(() => {
    if (conn.gone) return void clearInterval(timer)
    let outcome: Result | ApiError | undefined
    if (pane.removed || pane.occupantEpoch !== epoch) {
      outcome = new ApiError('agent_not_running', `agent in pane ${pane.id} is no longer running`)
    } else {
      outcome = done()
      if (!outcome && Date.now() >= deadline) outcome = new ApiError('timeout', `timed out waiting for agent in pane ${pane.id}`)
    }
    if (!outcome) return
    clearInterval(timer)
    if (outcome instanceof ApiError) conn.reply({ id: ctx.id, error: { code: outcome.code, message: outcome.message } })
    else conn.reply({ id: ctx.id, result: outcome })
  }, POLL_MS)
  conn.onGone(() => clearInterval(timer))
  return STREAMING
}

function checkReady(pane: Pane): void {
  if (!pane.agentLabel) throw new ApiError('agent_not_ready', `agent in pane ${pane.id} is not a known agent`)
  if (pane.launch) throw new ApiError('agent_not_ready', `agent in pane ${pane.id} is still launching`)
  if (pane.terminal.atShellPrompt()) throw new ApiError('agent_not_ready', `agent in pane ${pane.id} is no longer the foreground process`)
}

export const agentMethods: MethodTable = {
  'agent.list': (_p, { s }) => ({
    type: 'agent_list',
    agents: s
      .allPanes()
      .filter(hasAgent)
      .map((p) => s.info.agent(p)),
  }),

  'agent.get': (p, { s }) => ({ type: 'agent_info', agent: s.info.agent(agentPaneOrThrow(s, p.target)) }),

  'agent.focus': (p, { s }) => {
    const pane = agentPaneOrThrow(s, p.target)
    s.focusPane(pane)
    return { type: 'agent_info', agent: s.info.agent(pane) }
  },

  'agent.read': async (p, { s }) => {
    const pane = agentPaneOrThrow(s, p.target)
    return { type: 'pane_read', read: await readResult(pane, p.source, p.format, p.lines) }
  },

  'agent.explain': async (p, { s }) => {
    const pane = agentPaneOrThrow(s, p.target)
    if (!pane.agentLabel) {
      throw new ApiError('agent_explain_unavailable', `agent target ${p.target} does not have a detected agent label`)
    }
    await pane.terminal.settled()
    const screen = pane.terminal.read('detection', 'text', undefined).text
    return { type: 'agent_explain', explain: explain({ agent: pane.agentLabel, state: pane.state, screen, blockCategory: pane.blockCategory }) }
  },

  // agent.send_keys concatenates every key into a single write.
  'agent.send_keys': (p, { s }) => {
    const pane = agentPaneOrThrow(s, p.target)
    const data = encodeKeysOrThrow(pane, p.keys).join('')
    try {
      if (data) pane.terminal.write(data)
    } catch (err) {
      throw new ApiError('agent_send_keys_failed', (err as Error).message)
    }
    return ok()
  },

  'agent.rename': (p, { s }) => {
    const pane = agentPaneOrThrow(s, p.target)
    if (pane.launch) throw new ApiError('agent_launch_pending', `agent in pane ${pane.id} is still launching`)
    const name = typeof p.name === 'string' && p.name !== '' ? p.name : undefined
    if (name !== undefined) {
      checkName(name)
      if (s.allPanes().some((x) => x !== pane && x.agentName === name)) throw new ApiError('agent_name_taken', `agent name ${name} is already taken`)
    }
    if (pane.agentName !== name) {
      pane.agentName = name
      s.publish('pane_updated', { pane: s.info.pane(pane) })
    }
    return { type: 'agent_info', agent: s.info.agent(pane) }
  },

  // Types the command into the pane's idle shell and returns at once with launch_pending;
  // readiness is tracked by the session's agent supervisor.
  'agent.start': (p, { s }) => {
    checkName(p.name)
    if (!AGENT_KINDS.includes(p.kind)) throw new ApiError('unsupported_agent_kind', `unsupported agent kind ${p.kind}`)
    const args: string[] = p.args ?? []
    const bad = args.find((a) => /[\x00-\x1f\x7f]/.test(a))
    if (bad !== undefined) throw new ApiError('invalid_agent_argument', `agent argument contains control characters: ${JSON.stringify(bad)}`)
    const timeout = p.timeout_ms ?? DEFAULT_START_TIMEOUT_MS
    if (timeout <= 3000 || timeout > 300000) throw new ApiError('invalid_agent_timeout', 'timeout_ms must be greater than 3000 and at most 300000')
    const pane = s.allPanes().find((x) => x.id === p.pane_id)
    if (!pane) throw new ApiError('agent_pane_not_found', `agent pane ${p.pane_id} not found`)
    if (s.allPanes().some((x) => x.agentName === p.name)) throw new ApiError('agent_name_taken', `agent name ${p.name} is already taken`)
    if (pane.agentLabel || pane.agentName || pane.launch) throw new ApiError('agent_pane_busy', `pane ${pane.id} already hosts an agent`)
    if (!pane.terminal.atShellPrompt()) throw new ApiError('agent_pane_busy', `pane ${pane.id} is not at an idle shell prompt`)
    const argv = [p.kind as string, ...args]
    try {
      pane.terminal.write(`${argv.map(shellQuote).join(' ')}\r`)
    } catch (err) {
      throw new ApiError('agent_start_input_failed', (err as Error).message)
    }
    const now = Date.now()
    pane.agentName = p.name
    pane.launch = { kind: p.kind, startedAt: now, deadline: now + timeout }
    pane.interactiveReady = false
    s.publish('pane_updated', { pane: s.info.pane(pane) })
    return { type: 'agent_started', agent: s.info.agent(pane), argv }
  },

  'agent.prompt': (p, ctx) => {
    const { s } = ctx
    if (String(p.text).trim() === '') throw new ApiError('empty_agent_prompt', 'prompt text must not be empty')
    const pane = agentPaneOrThrow(s, p.target)
    checkReady(pane)
    // herdr 0.8.2 (#2788): an agent waiting at an approval or question dialog is refused, nothing typed.
    if (PROFILE.agentBlocked && pane.state === 'blocked') throw new ApiError('agent_blocked', `agent in pane ${pane.id} is waiting at an approval or question dialog`)
    const baseline = pane.stateChangeSeq
    const wasWorking = pane.state === 'working'
    try {
      pane.terminal.write(wrapPaste(pane, p.text))
    } catch (err) {
      throw new ApiError('agent_prompt_failed', (err as Error).message)
    }
    // Enter goes separately, 300 ms later, so the app has taken the paste before submitting.
    setTimeout(() => {
      if (!pane.removed && !pane.terminal.exited) {
        try {
          writeOrFail(pane, '\r')
        } catch {
          // the pane died in between; a waiting caller sees agent_not_running
        }
      }
    }, PROMPT_ENTER_DELAY_MS)
    if (!p.wait) return { type: 'agent_prompted', agent: s.info.agent(pane) }
    const until: AgentStatus[] = p.wait.until?.length ? p.wait.until : ['idle', 'done', 'blocked']
    const timeoutMs: number | undefined = p.wait.timeout_ms ?? undefined
    const started = Date.now()
    const deadline = timeoutMs !== undefined ? started + timeoutMs : Infinity
    const stallAt = started + Math.min(timeoutMs ?? Infinity, 5000)
    return waitOn(ctx, pane, deadline, () => {
      const moved = pane.stateChangeSeq > baseline
      if (!moved && !wasWorking) {
        if (Date.now() < stallAt) return undefined
        return timeoutMs !== undefined && timeoutMs <= 5000
          ? new ApiError('timeout', `timed out waiting for agent in pane ${pane.id}`)
          : new ApiError('agent_prompt_stalled', `agent in pane ${pane.id} did not react to the prompt`)
      }
      return until.includes(effectiveStatus(pane)) && (moved || wasWorking) ? { type: 'agent_prompted', agent: s.info.agent(pane) } : undefined
    })
  },

  'agent.wait': (p, ctx) => {
    const { s } = ctx
    const pane = agentPaneOrThrow(s, p.target)
    const until: AgentStatus[] = p.until?.length ? p.until : ['idle', 'done', 'blocked']
    if (until.includes(effectiveStatus(pane))) return { type: 'agent_info', agent: s.info.agent(pane) }
    const deadline = p.timeout_ms != null ? Date.now() + p.timeout_ms : Infinity
    return waitOn(ctx, pane, deadline, () => (until.includes(effectiveStatus(pane)) ? { type: 'agent_info', agent: s.info.agent(pane) } : undefined))
  },
}
