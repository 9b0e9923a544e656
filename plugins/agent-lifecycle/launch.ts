import type { PluginContext } from '../../core/plugin.ts'
import type { AgentInfo } from '../../lib/herdr-types.ts'
import { AGENT_BLOCKED, HerdrError } from '../../core/herdr/index.ts'
import { shellState, waitForPrompt } from '../../core/herdr/panes.ts'
import { HttpError } from '../../core/respond.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function agentAt(ctx: PluginContext, session: string, target: string): Promise<AgentInfo | null> {
  try {
    return (await ctx.herdr.call<{ agent: AgentInfo }>(session, 'agent.get', { target })).agent
  } catch (err) {
    if (err instanceof HerdrError && err.notFound) return null
    throw err
  }
}

/** Retries `fn` while herdr answers one of `codes`, every `everyMs`, for up to `forMs`. */
async function retrying<T>(fn: () => Promise<T>, codes: string[], everyMs: number, forMs: number): Promise<T> {
  const deadline = Date.now() + forMs
  for (;;) {
    try {
      return await fn()
    } catch (err) {
      if (!(err instanceof HerdrError) || !codes.includes(err.code) || Date.now() >= deadline) throw err
      await sleep(everyMs)
    }
  }
}

export interface LaunchResult {
  name: string
  prompt_sent: boolean
  prompt_error?: string
}

/**
 * Starts `kind` in the idle shell of a pane through herdr's socket and returns once herdr says
 * the agent is running and ready; readiness is herdr's verdict, never predicted. Then submits
 * `prompt`; a dropped prompt is reported, not thrown.
 */
export async function launch(
  ctx: PluginContext,
  o: { session: string; paneId: string; kind: string; name: string; timeoutMs: number; args?: string[]; prompt?: string },
): Promise<LaunchResult> {
  // A previous occupant's name must be gone before herdr accepts it again (restart).
  const freeBy = Date.now() + 3000
  while (Date.now() < freeBy && (await agentAt(ctx, o.session, o.name))) await sleep(150)

  try {
    await retrying(
      () =>
        ctx.herdr.call(
          o.session,
          'agent.start',
          { name: o.name, kind: o.kind, pane_id: o.paneId, timeout_ms: o.timeoutMs, ...(o.args?.length ? { args: o.args } : {}) },
          { timeoutMs: o.timeoutMs + 10_000 },
        ),
      ['agent_pane_busy', 'agent_name_taken'],
      250,
      10_000,
    )
  } catch (err) {
    if (err instanceof HerdrError) {
      if (['unsupported_agent_kind', 'invalid_agent_name', 'invalid_agent_timeout', 'invalid_agent_argument'].includes(err.code)) throw new HttpError(400, err.message || err.code)
      if (err.code === 'agent_pane_busy' || err.code === 'agent_name_taken') throw new HttpError(409, err.message || err.code)
    }
    throw err
  }

  const deadline = Date.now() + o.timeoutMs + 2000
  let ready: AgentInfo | null = null
  let seen = false
  while (Date.now() < deadline) {
    const a = await agentAt(ctx, o.session, o.paneId)
    if (a?.interactive_ready === true) {
      ready = a
      break
    }
    // herdr clears the name when its own launch timeout passes (or the agent exits at once):
    // the launch failed, no need to sit out our deadline.
    if ((a && !a.launch_pending && a.name !== o.name) || (seen && !a)) break
    seen ||= !!a
    await sleep(250)
  }
  if (!ready) throw new HttpError(502, `${o.kind} did not become ready in pane ${o.paneId} within ${Math.round(o.timeoutMs / 1000)} s`)

  // The session id appears shortly after readiness; transcripts need it (bounded, best effort).
  const sessionBy = Date.now() + 3000
  while (!ready?.agent_session && Date.now() < sessionBy) {
    await sleep(200)
    ready = (await agentAt(ctx, o.session, o.paneId).catch(() => null)) ?? ready
  }

  if (!o.prompt) return { name: o.name, prompt_sent: false }
  try {
    await retrying(() => ctx.herdr.call(o.session, 'agent.prompt', { target: o.name, text: o.prompt }), ['agent_not_ready'], 150, 10_000)
    return { name: o.name, prompt_sent: true }
  } catch (err) {
    const why = err instanceof HerdrError ? (err.code === 'agent_blocked' ? `agent_blocked: ${AGENT_BLOCKED}` : `${err.code}: ${err.message}`) : (err as Error).message
    return { name: o.name, prompt_sent: false, prompt_error: why }
  }
}

const STOP_WINDOW_MS = 12_000
const STOP_ROUNDS = 4

/** Quits the foreground agent with ctrl+c rounds; true once the shell prompt is back. */
export async function stopToPrompt(ctx: PluginContext, session: string, paneId: string): Promise<boolean> {
  const started = Date.now()
  for (let round = 0; round < STOP_ROUNDS; round++) {
    if ((await shellState(ctx.herdr, session, paneId)).atPrompt) return true
    await ctx.herdr.call(session, 'pane.send_keys', { pane_id: paneId, keys: ['ctrl+c'] })
    await sleep(400)
  }
  const left = STOP_WINDOW_MS - (Date.now() - started)
  return (await waitForPrompt(ctx.herdr, session, paneId, Math.max(0, left))).atPrompt
}
