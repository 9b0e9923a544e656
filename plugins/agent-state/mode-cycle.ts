/**
 * POST /agent-mode/cycle: one step around the permission-mode ring of a kind that has one.
 * The bridge never sets a mode; it presses the kind's cycle input and reads back what it sees.
 */
import type { PluginContext } from '../../core/plugin.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { fail } from '../../core/respond.ts'
import { normKind } from '../../lib/card.ts'

export const READBACK_TRIES = 6
export const READBACK_INTERVAL_MS = 180

export async function cycleMode(ctx: PluginContext, pane: string): Promise<{ ok: true; cycled: true; permission_mode?: string }> {
  let got
  try {
    got = await ctx.herdr.getAgent(pane)
  } catch (err) {
    if (err instanceof HerdrError && err.code === 'session_not_found') fail(404, 'no such agent')
    throw herdrFailure('agent get', pane, err)
  }
  if (!got) fail(404, 'no such agent')
  const { ref, agent } = got
  const kind = normKind(agent.agent)
  const modes = ctx.agentKinds.get(kind)?.screen?.modes
  const input = modes?.cycleInput
  if (!modes || !input) fail(409, `mode switching not supported for this agent kind: ${kind || agent.agent || ''}`)
  const readMode = async () => {
    try {
      const r = await ctx.herdr.call<{ read?: { text?: string } }>(ref.session, 'agent.read', { target: ref.id, source: 'detection', format: 'text' })
      return modes.read(r?.read?.text ?? '')
    } catch {
      return undefined
    }
  }
  const before = await readMode()
  try {
    await ctx.herdr.call(ref.session, 'pane.send_text', { pane_id: ref.id, text: input })
  } catch (err) {
    throw herdrFailure('pane send-text', pane, err)
  }
  let mode: string | undefined
  for (let i = 0; i < READBACK_TRIES; i++) {
    await new Promise((r) => setTimeout(r, READBACK_INTERVAL_MS))
    const now = await readMode()
    if (now && now !== before) {
      mode = now
      break
    }
  }
  ctx.bus.publish('bridge', 'mode_cycled', { pane, ...(mode ? { permission_mode: mode } : {}) })
  return { ok: true, cycled: true, ...(mode ? { permission_mode: mode } : {}) }
}

function herdrFailure(what: string, pane: string, err: unknown): never {
  fail(502, `herdr ${what} ${pane}: ${(err as Error)?.message ?? err}`)
}
