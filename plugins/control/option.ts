import type { PluginContext } from '../../core/plugin.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { toHerdrKey } from '../../core/herdr/keys.ts'
import { CardReadError, readCard } from '../../core/card.ts'
import type { CardOption, QuestionAnswer } from '../../lib/card.ts'
import { approveOutcome } from './approve.ts'
import { findOption, optionMissing, readOptionRef } from './guard.ts'
import { answerThroughService } from './question.ts'
import { planSend } from './send.ts'
import { confirmKey, findAgent, type FoundAgent } from './target.ts'

type Outcome = { applied: boolean; reason: string }

/**
 * `/approve {agent, seq, option}` once the agent was found blocked at `seq`: the option must be on
 * the screen read now, and the agent still blocked at `seq` after that read, before anything is
 * typed. A tap on a card the desk already answered therefore types nothing: either herdr's seq
 * moved, or the option left the screen.
 */
export async function applyOption(ctx: PluginContext, found: FoundAgent, target: string, seq: number, option: unknown): Promise<Outcome> {
  const ref = readOptionRef(option)
  if (!ref) return { applied: false, reason: optionMissing({ key: String(option) }) }
  if ('error' in ref) return { applied: false, reason: ref.error }
  let chosen: CardOption | undefined
  try {
    const card = await readCard(ctx, target, { agent: found.agent })
    chosen = findOption(card?.blocked?.options, ref)
  } catch (err) {
    if (!(err instanceof CardReadError)) throw err
  }
  if (!chosen) return { applied: false, reason: optionMissing(ref) }
  // The screen read takes a moment; the desk may have answered meanwhile.
  const again = await findAgent(ctx, target)
  const still = approveOutcome(again?.agent ?? null, seq)
  if (!still.applied || !again) return still
  const answer: QuestionAnswer = chosen.index > 0 ? { index: chosen.index } : { dismiss: true }
  if ((chosen.index > 0 || isEsc(chosen.key)) && (await answerThroughService(ctx, again.agent, answer))) return still
  const keys = optionKeys(ctx, again, chosen)
  if ('error' in keys) return { applied: false, reason: keys.error }
  try {
    for (const step of keys.steps) await ctx.herdr.call(again.session, step.method, { pane_id: again.agent.pane_id, ...step.params })
  } catch (err) {
    // The pane closed between the check and the keystroke.
    if (err instanceof HerdrError && err.notFound) return approveOutcome(null, seq)
    throw err
  }
  return still
}

const isEsc = (key: string | undefined) => key === 'esc' || key === 'escape'

/** The keystrokes that choose an option: its raw key, the confirm key for the highlighted one, else its number and Enter. */
function optionKeys(ctx: PluginContext, found: FoundAgent, o: CardOption): ReturnType<typeof planSend> | { error: string } {
  if (o.index === 0) {
    const key = o.key ? toHerdrKey(o.key) : undefined
    return key ? { steps: [{ method: 'pane.send_keys', params: { keys: [key] } }] } : { error: `option key ${JSON.stringify(o.key ?? '')} is not a key herdr knows` }
  }
  if (o.selected) return { steps: [{ method: 'pane.send_keys', params: { keys: [confirmKey(ctx, found.agent.agent)] } }] }
  return planSend({ text: `${o.index}\n` })
}
