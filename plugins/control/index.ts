import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { fail } from '../../core/respond.ts'
import { HerdrError } from '../../core/herdr/index.ts'
import { planSend } from './send.ts'
import { approveOutcome, parseSeq } from './approve.ts'
import { answerForSend, answerThroughService, anyQuestionService } from './question.ts'
import { readSendSeq, sendSeqRefusal } from './guard.ts'
import { applyOption } from './option.ts'
import { confirmKey, findAgent } from './target.ts'

/**
 * Typing into panes and approving blocked agents.
 *   POST /send     device {pane, text} | {pane, key}, optional seq → {ok: true}; 409 when seq is stale
 *   POST /approve  device {agent, seq, option?} → {ok: true, applied, reason?} (always 200 once `agent` is given)
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
        seq: v.pipe(
          v.optional(v.union([v.number(), v.string()])),
          v.description("optional guard: the agent's state_change_seq the reply answers; 409 and nothing typed when it has moved on"),
        ),
      }),
      audit: ({ body }) => ({ pane: body.pane, text_length: body.text?.length }),
      async handler({ body, ctx }) {
        const plan = planSend(body)
        if ('error' in plan) fail(plan.status, plan.error)
        const guard = readSendSeq(body.seq)
        if ('error' in guard) fail(400, guard.error)
        // An unknown session is a 404 from resolve, before anything is typed.
        const ref = await ctx.herdr.resolve(body.pane)
        // With seq, the reply answers one state of the agent: read just before typing, so a reply
        // to a question the desk already answered is refused instead of typed into the next screen.
        const guarded = guard.seq === undefined ? undefined : await findAgent(ctx, body.pane)
        if (guard.seq !== undefined) {
          const refusal = sendSeqRefusal(guarded?.agent ?? null, guard.seq)
          if (refusal) fail(409, refusal)
        }
        const answer = anyQuestionService(ctx) ? answerForSend(body) : null
        if (answer) {
          const found = guarded ?? (await findAgent(ctx, body.pane))
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
      describe: 'Press the confirm key (or choose `option`) of a blocked agent whose state_change_seq still matches',
      response: v.object({ ok: v.literal(true), applied: v.boolean(), reason: v.optional(v.string()) }),
      invalid: 'want {agent, seq}',
      body: v.object({
        agent: v.pipe(v.string(), v.nonEmpty()),
        seq: v.optional(v.unknown()),
        // Any type: a malformed option is a 200 not-applied like every other /approve outcome.
        option: v.pipe(
          v.optional(v.unknown()),
          v.description("optional: the card's 1-based option index, or an option's key (esc); applied only while that option is on screen at seq"),
        ),
      }),
      audit: ({ body }) => ({ pane: body.agent }),
      async handler({ body, ctx }) {
        const seq = parseSeq(body.seq)
        let found: Awaited<ReturnType<typeof findAgent>> = null
        let applied = false
        let reason: string
        try {
          found = await findAgent(ctx, body.agent)
          ;({ applied, reason } = approveOutcome(found?.agent ?? null, seq))
          if (body.option !== undefined) {
            // An explicit choice: checked against the screen and the seq again just before typing.
            if (applied && found) ({ applied, reason } = await applyOption(ctx, found, body.agent, seq, body.option))
          } else if (applied && found && (await answerThroughService(ctx, found.agent, { index: 1 }))) {
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
