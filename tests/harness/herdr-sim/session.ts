// One simulated herdr server: a socket, its request dispatcher and an independent session state.
import { onPaneExit, releaseAgent } from './agents.ts'
import { ApiError } from './errors.ts'
import { installInfo } from './info.ts'
import { agentMethods } from './methods/agent.ts'
import { eventMethods } from './methods/events.ts'
import { paneMethods } from './methods/pane.ts'
import { serverMethods } from './methods/server.ts'
import { ALWAYS_ALLOWED_SIM_PREFIXES, simMethods } from './methods/sim.ts'
import { STREAMING, type Handler, type MethodContext, type Result } from './methods/types.ts'
import { workspaceMethods } from './methods/workspace.ts'
import { worktreeMethods } from './methods/worktree.ts'
import { checkParams, describe, paramsDefFor } from './schema.ts'
import { SessionState, type SessionConfig } from './state.ts'
import { closeAllStreams } from './stream.ts'
import { listen, type Connection, type WireServer } from './wire.ts'

const HANDLERS: Record<string, Handler> = {
  ...serverMethods,
  ...workspaceMethods,
  ...worktreeMethods,
  ...paneMethods,
  ...agentMethods,
  ...eventMethods,
  ...simMethods,
}

const SUPERVISE_MS = 250

export class SimSession {
  state: SessionState
  private server?: WireServer
  private supervisor?: NodeJS.Timeout
  private restartTimer?: NodeJS.Timeout
  private shellStreak = new Map<object, number>()

  constructor(readonly config: SessionConfig) {
    this.state = this.freshState()
  }

  get listening(): boolean {
    return this.server !== undefined
  }

  private freshState(): SessionState {
    const s = new SessionState(this.config)
    installInfo(s)
    s.paneExitHooks.push((pane) => onPaneExit(s, pane))
    return s
  }

  async start(): Promise<void> {
    if (this.server) return
    clearTimeout(this.restartTimer)
    this.server = await listen(this.config.socketPath, (line, conn) => this.handleLine(line, conn))
    this.supervisor = setInterval(() => this.supervise(), SUPERVISE_MS)
  }

  /**
   * Runs a `sim.*` method on this session's state without a client (the control channel): an agent
   * that changes while the socket is closed, i.e. while the bridge is cut off from a running herdr.
   */
  direct(method: string, params: unknown): unknown {
    const handler = method.startsWith('sim.') ? HANDLERS[method] : undefined
    if (!handler) throw new Error(`no sim method ${method}`)
    return handler(params, { s: this.state, id: 'control', conn: undefined as never, stopServer: (o) => this.stopServer(o) })
  }

  /** Closes the socket. `fresh` also kills every pane and resets ids, as a real restart would. */
  async stop(opts: { fresh?: boolean } = {}): Promise<void> {
    clearInterval(this.supervisor)
    closeAllStreams(this.state, 'server is shutting down')
    const server = this.server
    this.server = undefined
    await server?.close()
    if (opts.fresh) {
      this.state.destroyAll()
      this.state = this.freshState()
    }
  }

  async shutdown(): Promise<void> {
    clearTimeout(this.restartTimer)
    await this.stop()
    this.state.destroyAll()
  }

  private stopServer(opts: { fresh: boolean; restartAfterMs?: number }): void {
    void this.stop({ fresh: opts.fresh }).then(() => {
      if (opts.restartAfterMs !== undefined) {
        this.restartTimer = setTimeout(() => void this.start().catch((e) => console.error(`restart failed: ${String(e)}`)), opts.restartAfterMs)
      }
    })
  }

  // --- request parsing and dispatch --------------------------------------------------------

  private handleLine(line: string, conn: Connection): void {
    const fail = (id: string, code: string, message: string): void => conn.reply({ id, error: { code, message } })
    const invalid = (detail: string): void => fail('', 'invalid_request', `invalid request: ${detail}`)
    let req: unknown
    try {
      req = JSON.parse(line)
    } catch (err) {
      return invalid(`${(err as Error).message} at line 1`)
    }
    if (req === null || typeof req !== 'object' || Array.isArray(req)) return invalid(`invalid type: ${describe(req)}, expected struct Request`)
    const r = req as Record<string, unknown>
    if (!('id' in r)) return invalid('missing field `id`')
    if (typeof r.id !== 'string') return invalid(`invalid type: ${describe(r.id)}, expected a string`)
    if (!('method' in r)) return invalid('missing field `method`')
    const method = r.method
    if (typeof method !== 'string') return invalid(`invalid type: ${describe(method)}, expected a string`)
    const isSim = method.startsWith('sim.')
    const simAllowed = isSim && (this.config.testMode || ALWAYS_ALLOWED_SIM_PREFIXES.some((p) => method.startsWith(p)))
    if ((isSim && !simAllowed) || (!isSim && !paramsDefFor(method)) || (isSim && !HANDLERS[method])) {
      return invalid(`unknown variant \`${method}\``)
    }
    if (!('params' in r)) return invalid('missing field `params`')
    const params = r.params
    if (isSim) {
      if (params === null || typeof params !== 'object' || Array.isArray(params)) return invalid(`invalid type: ${describe(params)}, expected a map`)
    } else {
      const detail = checkParams(method, params)
      if (detail) return invalid(detail)
    }
    const handler = HANDLERS[method]
    if (!handler) return fail(r.id, 'internal_error', `${method} is not implemented by the herdr simulator`)
    this.run(handler, params, r.id, conn)
  }

  private run(handler: Handler, params: unknown, id: string, conn: Connection): void {
    const ctx: MethodContext = { s: this.state, id, conn, stopServer: (o) => this.stopServer(o) }
    const settle = (out: Result | typeof STREAMING): void => {
      if (out !== STREAMING) conn.reply({ id, result: out })
      else conn.setStreaming()
      this.state.syncFocus()
    }
    const failWith = (err: unknown): void => {
      if (err instanceof ApiError) conn.reply({ id: err.replyId ?? id, error: { code: err.code, message: err.message } })
      else conn.reply({ id, error: { code: 'internal_error', message: String((err as Error)?.message ?? err) } })
      this.state.syncFocus()
    }
    // Handlers run synchronously up to their first await, so a streaming handler owns the
    // connection before any bytes queued behind the request line are looked at.
    let out: ReturnType<Handler>
    try {
      out = handler(params, ctx)
    } catch (err) {
      return failWith(err)
    }
    if (out instanceof Promise) out.then(settle, failWith)
    else settle(out)
  }

  // --- background agent bookkeeping --------------------------------------------------------

  /**
   * Finishes agent.start launches (ready once the expected kind reports idle/blocked and 3 s have
   * passed; name cleared on timeout) and releases integration-reported agents whose process is
   * gone from the foreground, as herdr's process watcher does.
   */
  private supervise(): void {
    const s = this.state
    const now = Date.now()
    for (const pane of s.allPanes()) {
      const launch = pane.launch
      if (launch) {
        if (pane.agentLabel === launch.kind && (pane.state === 'idle' || pane.state === 'blocked') && now - launch.startedAt >= 3000) {
          pane.launch = undefined
          pane.interactiveReady = true
          s.publish('pane_updated', { pane: s.info.pane(pane) })
        } else if (now > launch.deadline) {
          pane.launch = undefined
          pane.agentName = undefined
          s.publish('pane_updated', { pane: s.info.pane(pane) })
        }
      }
      if (pane.agentSource?.startsWith('herdr:') && !pane.terminal.exited) {
        const streak = pane.terminal.atShellPrompt() ? (this.shellStreak.get(pane) ?? 0) + 1 : 0
        this.shellStreak.set(pane, streak)
        if (streak >= 3) {
          this.shellStreak.delete(pane)
          releaseAgent(s, pane)
        }
      }
    }
  }
}
