import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute, type PluginContext } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'
import { HerdrError, qualifyId } from '../../core/herdr/index.ts'
import { toHerdrKey } from '../../core/herdr/keys.ts'
import { planSend } from './send.ts'
import { approveOutcome, parseSeq } from './approve.ts'
import { answerForSend, answerThroughService, anyQuestionService } from './question.ts'

/**
 * Typing into panes and approving blocked agents.
 *   POST /send     device {pane, text} | {pane, key} → {ok: true}
 *   POST /approve  device {agent, seq} → {ok: true, applied, reason?} (always 200 once `agent` is given)
 * Every /approve outcome is published on the bus as bridge `approve_applied {pane, seq, applied, reason}`.
 */
export default defineBridgePlugin({
  name: 'control',
  routes: [
    defineBridgeRoute({
      method: 'POST',
      path: '/send',
      auth: 'device',
      describe: 'Type text (a trailing newline submits) or press one key in a pane',
      response: v.object({ ok: v.literal(true) }),
      invalid: 'want {pane, text} or {pane, key}',
      body: v.object({
        pane: v.pipe(v.string(), v.nonEmpty()),
        text: v.optional(v.string()),
        key: v.optional(v.string()),
      }),
      audit: ({ body }) => ({ pane: body.pane, text_length: body.text?.length }),
      async handler({ body, ctx }) {
        const plan = planSend(body)
        if ('error' in plan) fail(plan.status, plan.error)
        // An unknown session is a 404 from resolve, before anything is typed.
        const ref = await ctx.herdr.resolve(body.pane)
        const answer = anyQuestionService(ctx) ? answerForSend(body) : null
        if (answer) {
          const found = await findAgent(ctx, body.pane)
          if (await answerThroughService(ctx, found?.agent, answer)) return { ok: true }
        }
        for (const step of plan.steps) {
          try {
            await ctx.herdr.call(ref.session, step.method, { pane_id: ref.id, ...step.params })
          } catch (err) {
            if (err instanceof HerdrError && err.notFound) fail(404, `no such pane: ${body.pane}`)
            if (err instanceof HerdrError && err.code === 'invalid_key') fail(400, `unknown key: ${JSON.stringify(body.key)}`)
            throw err
          }
        }
        return { ok: true }
      },
    }),
    defineBridgeRoute({
      method: 'POST',
      path: '/approve',
      auth: 'device',
      describe: 'Press the confirm key of a blocked agent whose state_change_seq still matches',
      response: v.object({ ok: v.literal(true), applied: v.boolean(), reason: v.optional(v.string()) }),
      invalid: 'want {agent, seq}',
      body: v.object({ agent: v.pipe(v.string(), v.nonEmpty()), seq: v.optional(v.unknown()) }),
      audit: ({ body }) => ({ pane: body.agent }),
      async handler({ body, ctx }) {
        const seq = parseSeq(body.seq)
        let found: Awaited<ReturnType<typeof findAgent>> = null
        let applied = false
        let reason: string
        try {
          found = await findAgent(ctx, body.agent)
          ;({ applied, reason } = approveOutcome(found?.agent ?? null, seq))
          if (applied && found && (await answerThroughService(ctx, found.agent, { index: 1 }))) {
            // Answered with the form's default (first) choice; no keystroke.
          } else if (applied && found) {
            try {
              await ctx.herdr.call(found.session, 'pane.send_keys', { pane_id: found.agent.pane_id, keys: [confirmKey(ctx, found.agent.agent)] })
            } catch (err) {
              // The pane closed between the check and the keystroke.
              if (!(err instanceof HerdrError && err.notFound)) throw err
              ;({ applied, reason } = approveOutcome(null, seq))
            }
          }
        } catch (err) {
          // Every /approve outcome past the body check is a 200 with `applied`, including a
          // multiplexer that cannot be reached; nothing was pressed.
          if (!(err instanceof HerdrError)) throw err
          applied = false
          reason = `herdr: ${err.code}: ${err.message}`
        }
        ctx.bus.publish('bridge', 'approve_applied', { pane: found?.qualified ?? body.agent, seq, applied, reason })
        return reason ? { ok: true, applied, reason } : { ok: true, applied }
      },
    }),
  ],
})

async function findAgent(ctx: PluginContext, target: string) {
  try {
    const r = await ctx.herdr.getAgent(target)
    return r && { session: r.ref.session, qualified: qualifyId(r.ref.session, r.agent.pane_id || r.ref.id), agent: r.agent }
  } catch (err) {
    // An unknown session holds no such agent; /approve answers 200 for every lookup miss.
    if (err instanceof HerdrError && err.notFound) return null
    throw err
  }
}

/** The kind's confirm key when it is a key herdr knows, else Enter. */
function confirmKey(ctx: PluginContext, kind: string | undefined): string {
  const configured = ctx.agentKinds.get(kind)?.screen?.confirmKey
  if (configured === undefined) return 'enter'
  const key = toHerdrKey(configured)
  if (!key) ctx.log.warn(`agent kind ${kind}: confirmKey ${JSON.stringify(configured)} is not a herdr key; pressing enter`)
  return key ?? 'enter'
}
