// Simulator-only methods. `sim.terminal.*` and `sim.agent.*` are private channels used by the
// fake CLI and the fake agent and always work; every other `sim.*` method is a test control and
// is refused (as an unknown method) unless the simulator runs with --test-mode.
import fs from 'node:fs'
import path from 'node:path'
import { releaseAgent, reportAgent, setPresentation } from '../agents.ts'
import { ApiError } from '../errors.ts'
import { paneOrThrow, workspaceOrThrow } from '../resolve.ts'
import type { AgentState } from '../state.ts'
import { attachStream } from '../stream.ts'
import { provenanceSync } from '../worktree.ts'
import { STREAMING, ok, type MethodTable } from './types.ts'

export const ALWAYS_ALLOWED_SIM_PREFIXES = ['sim.terminal.', 'sim.agent.']

const STATES = new Set(['idle', 'working', 'blocked', 'unknown'])

function need(cond: unknown, detail: string): void {
  if (!cond) throw new ApiError('invalid_request', `invalid request: ${detail}`)
}

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}

export const simMethods: MethodTable = {
  'sim.terminal.attach': (p, { s, conn }) => {
    need(typeof p.target === 'string', 'missing field `target`')
    need(p.mode === 'observe' || p.mode === 'control', 'mode must be observe or control')
    attachStream(s, conn, p)
    return STREAMING
  },

  /** The fake agent reports which kind of block it shows, so agent.explain can name it. */
  'sim.agent.hint': (p, { s }) => {
    need(typeof p.pane_id === 'string', 'missing field `pane_id`')
    const pane = paneOrThrow(s, p.pane_id)
    pane.blockCategory = typeof p.block_category === 'string' && p.block_category ? p.block_category : undefined
    return ok()
  },

  /** Drives a pane's agent state directly (source `custom:sim` unless given). */
  'sim.set_status': (p, { s }) => {
    need(typeof p.pane_id === 'string', 'missing field `pane_id`')
    need(STATES.has(p.state), 'state must be idle, working, blocked or unknown')
    const pane = paneOrThrow(s, p.pane_id)
    const agent: string = p.agent ?? pane.agentLabel ?? 'sim-agent'
    if (p.category !== undefined) pane.blockCategory = p.category || undefined
    reportAgent(s, pane, { source: p.source ?? 'custom:sim', agent, state: p.state as AgentState, agentSessionId: p.agent_session_id ?? undefined })
    if (p.seen !== undefined) pane.seen = p.seen === true
    if (p.title !== undefined || p.display_agent !== undefined || p.state_labels !== undefined) {
      setPresentation(s, pane, { title: p.title, displayAgent: p.display_agent, stateLabels: p.state_labels })
    }
    return { type: 'pane_info', pane: s.info.pane(pane) }
  },

  'sim.release_agent': (p, { s }) => {
    releaseAgent(s, paneOrThrow(s, p.pane_id))
    return ok()
  },

  /** Kills the pane's whole process group; the exit then follows herdr's pane_exited path. */
  'sim.kill_pane': (p, { s }) => {
    const pane = paneOrThrow(s, p.pane_id)
    pane.terminal.kill((p.signal as NodeJS.Signals | undefined) ?? 'SIGKILL')
    return ok()
  },

  /** Whether the outer terminal has focus: unfocused makes every completion land as `done`. */
  'sim.set_client_focus': (p, { s }) => {
    need(typeof p.focused === 'boolean', 'missing field `focused`')
    s.clientFocused = p.focused
    return ok()
  },

  /** The next `count` events (of `type`, e.g. `pane_agent_status_changed`, when given) are never published. */
  'sim.drop_events': (p, { s }) => {
    need(Number.isInteger(p.count) && p.count >= 0, 'count must be a non-negative integer')
    need(p.type === undefined || typeof p.type === 'string', 'type must be a string')
    s.dropEvents = { count: p.count, type: p.type ?? null }
    return ok()
  },

  /** Closes this session's socket (optionally wiping state), re-listening after `restart_after_ms`. */
  'sim.stop': (p, ctx) => {
    const restartAfterMs = typeof p.restart_after_ms === 'number' ? p.restart_after_ms : undefined
    setTimeout(() => ctx.stopServer({ fresh: p.fresh === true, restartAfterMs }), 20)
    return ok()
  },

  /** Every pane process id, so a harness can verify teardown. */
  'sim.pids': (_p, { s }) => ({
    type: 'sim_pids',
    pids: s
      .allPanes()
      .filter((x) => !x.terminal.exited)
      .map((x) => x.terminal.pid),
  }),

  /**
   * Creates a pane (a new workspace, or a tab in `workspace_id`, or a split of `split_pane_id`)
   * and types the fake agent's command into its shell. With `wait` (default true) the reply comes
   * once the agent has reported itself.
   */
  'sim.create_agent_pane': async (p, { s }) => {
    const kind: string = p.kind ?? 'claude'
    need(['claude', 'pi', 'codex', 'opencode'].includes(kind), 'kind must be claude, pi, codex or opencode')
    const cwd: string | undefined = p.cwd ?? undefined
    if (cwd) fs.mkdirSync(cwd, { recursive: true })
    let pane
    if (p.split_pane_id) {
      pane = s.split(paneOrThrow(s, p.split_pane_id), p.direction === 'down' ? 'down' : 'right', { cwd, focus: p.focus === true })
    } else if (p.workspace_id) {
      pane = s.createTab(workspaceOrThrow(s, p.workspace_id), { cwd, label: p.label, focus: p.focus === true }).pane
    } else {
      const worktree = provenanceSync(cwd ?? s.config.defaultCwd)
      pane = s.createWorkspace({ cwd, label: p.label, focus: p.focus === true, worktree }).pane
    }
    const args: string[] = []
    if (p.script !== undefined) {
      let scriptPath: string
      if (typeof p.script === 'string') scriptPath = path.resolve(p.script)
      else {
        scriptPath = path.join(path.dirname(s.config.shimDir), 'scripts', `${pane.terminalId}.json`)
        fs.mkdirSync(path.dirname(scriptPath), { recursive: true })
        fs.writeFileSync(scriptPath, JSON.stringify(p.script))
      }
      args.push('--script', scriptPath)
    }
    if (p.name) {
      need(/^[a-z][a-z0-9_-]{0,31}$/.test(p.name), 'invalid agent name')
      pane.agentName = p.name
    }
    pane.terminal.write(`${[kind, ...args].map(shellQuote).join(' ')}\r`)
    if (p.wait !== false) {
      const deadline = Date.now() + (typeof p.timeout_ms === 'number' ? p.timeout_ms : 20000)
      while (pane.agentLabel !== kind) {
        if (pane.removed || Date.now() > deadline) throw new ApiError('timeout', `fake ${kind} agent did not report in pane ${pane.id}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    return { type: 'pane_info', pane: s.info.pane(pane) }
  },
}
