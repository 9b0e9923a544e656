/**
 * agent-kinds: what the bridge knows about each configured agent kind, so a client draws only
 * the features a pane's kind has (the mode switch, the transcript tab) without naming kinds.
 *
 *   GET /agent-kinds   {kinds: [{kind, card, permission_modes?, mode_cycle, transcript,
 *                       subagents, commands, usage, question, start_options?}]}   (device)
 *
 * A kind missing from the list has only the generic behaviour. Read from the registry on every
 * request; nothing is stored.
 */
import * as v from 'valibot'
import { defineBridgePlugin, defineBridgeRoute } from '../../core/plugin.ts'
import { streamsTranscript, type AgentKind } from '../../lib/agent-kinds.ts'

const kindSchema = v.object({
  kind: v.string(),
  /** The card parses this kind's blocking prompts (`parsed: true`). */
  card: v.boolean(),
  /** The modes in cycle order, when the kind names them. */
  permission_modes: v.optional(v.array(v.string())),
  /** `POST /agent-mode/cycle` works for this kind. */
  mode_cycle: v.boolean(),
  /** `WS /agent-transcript` can stream this kind. */
  transcript: v.boolean(),
  subagents: v.boolean(),
  /** `GET /commands` lists this kind's slash commands. */
  commands: v.boolean(),
  /** `GET /usage` has a key for this kind. */
  usage: v.boolean(),
  /** Blocked questions are answered through the kind's own service. */
  question: v.boolean(),
  /** What `POST /agent/start` `options` may set, when the kind declares any: a choice of `values`, else free text. */
  start_options: v.optional(v.array(v.object({ name: v.string(), label: v.string(), values: v.optional(v.array(v.string())), hint: v.optional(v.string()) }))),
})

export function describeKind(k: AgentKind): v.InferOutput<typeof kindSchema> {
  const modes = k.screen?.modes
  return {
    kind: k.kind,
    card: typeof k.screen?.parse === 'function',
    ...(modes?.known?.length ? { permission_modes: [...modes.known] } : {}),
    mode_cycle: typeof modes?.read === 'function' && !!modes.cycleInput,
    transcript: streamsTranscript(k.transcript),
    subagents: typeof k.transcript?.roster === 'function',
    commands: typeof k.commands === 'function',
    usage: typeof k.usage === 'function',
    question: typeof k.question?.pending === 'function',
    ...(k.start?.options.length
      ? { start_options: k.start.options.map((o) => ({ name: o.name, label: o.label, ...(o.values ? { values: [...o.values] } : {}), ...(o.hint ? { hint: o.hint } : {}) })) }
      : {}),
  }
}

export default defineBridgePlugin({
  name: 'agent-kinds',
  routes: [
    defineBridgeRoute({
      method: 'GET',
      path: '/agent-kinds',
      auth: 'device',
      describe: 'The capabilities of each configured agent kind (card parser, permission modes, transcript, commands, usage)',
      response: v.object({ kinds: v.array(kindSchema) }),
      handler: ({ ctx }) => ({
        kinds: ctx.agentKinds
          .list()
          .map(describeKind)
          .sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0)),
      }),
    }),
  ],
})
