import type { PluginContext } from '../../core/plugin.ts'
import type { AgentInfo } from '../../core/herdr/index.ts'
import type { QuestionAnswer, QuestionService } from '../../lib/card.ts'

/**
 * For a kind whose blocked question is a managed service form, the default choice (/approve), a
 * bare option number and free text (/send) and `key: esc` are answered through the service, not
 * typed. Keystrokes remain the fallback when the service has no pending question.
 */
export function answerForSend(input: { text?: string; key?: string }): QuestionAnswer | null {
  if (input.key) return input.key.trim().toLowerCase() === 'esc' || input.key.trim().toLowerCase() === 'escape' ? { dismiss: true } : null
  const body = (input.text ?? '').replace(/[\r\n]+$/, '').trim()
  if (!body) return null
  return /^\d{1,3}$/.test(body) ? { index: Number(body) } : { text: body }
}

function serviceFor(ctx: PluginContext, kind: string | undefined): QuestionService | undefined {
  const s = ctx.agentKinds.get(kind)?.question
  return s && typeof s.answer === 'function' ? s : undefined
}

/** Whether any configured kind has a question service (skips the agent lookup otherwise). */
export function anyQuestionService(ctx: PluginContext): boolean {
  return ctx.agentKinds.list().some((k) => !!k.question)
}

/** True when the service took the answer; false means "type it as usual". */
export async function answerThroughService(ctx: PluginContext, agent: AgentInfo | undefined, answer: QuestionAnswer): Promise<boolean> {
  const service = agent ? serviceFor(ctx, agent.agent) : undefined
  if (!service || !agent) return false
  try {
    return await service.answer(ctx, agent, answer)
  } catch (err) {
    ctx.log.warn(`question service for ${agent.agent} failed, typing instead: ${(err as Error).message}`)
    return false
  }
}
