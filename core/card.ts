/**
 * The card reader: the agent state card (`GET /agent-state`) for a pane, read through herdr and
 * the agent-kind registry, so that the card route and the alerts read the same thing without
 * importing a plugin. The card's shapes and the generic summary are pure (lib/card.ts); the
 * parsers live in the kind plugins that contribute them. This file only orders the reads.
 */
import type { PluginContext } from './plugin.ts'
import { HerdrError, type AgentInfo, type PaneRef } from './herdr/index.ts'
import { FALLBACK_KIND, normKind, normStatus, type Card, type CardBlocked, type ScreenParse, type Summary, type SummaryInput } from '../lib/card.ts'

/** `agent.get` failed for a reason other than "no such agent". */
export class CardReadError extends Error {}

export interface ReadCardOptions {
  /** Read scrollback (visibly scrolls an alternate-screen agent); the visible screen otherwise. */
  recent?: boolean
  /** The agent as already read, to skip `agent.get`. */
  agent?: AgentInfo
}

/**
 * Reads the card for a client pane id. Null when there is no agent there (or no such session);
 * CardReadError when herdr could not answer `agent.get`. Screen reads, the transcript, explain
 * and the question service are best effort: a failure thins the card, never fails it.
 */
export async function readCard(ctx: PluginContext, pane: string, opts: ReadCardOptions = {}): Promise<Card | null> {
  let ref: PaneRef
  let agent: AgentInfo
  try {
    if (opts.agent) {
      ref = await ctx.herdr.resolve(pane)
      agent = opts.agent
    } else {
      // getAgent resolves the id itself.
      const got = await ctx.herdr.getAgent(pane)
      if (!got) return null
      ;({ ref, agent } = got)
    }
  } catch (err) {
    if (err instanceof HerdrError && (err.notFound || err.code === 'session_not_found')) return null
    throw new CardReadError(`herdr agent get ${pane}: ${(err as Error).message}`)
  }
  const kind = normKind(agent.agent)
  if (!kind) return null
  const status = normStatus(agent.agent_status)
  const caps = ctx.agentKinds.get(kind)
  const fallback = ctx.agentKinds.get(FALLBACK_KIND)
  const read = (source: string, lines?: number) =>
    ctx.herdr
      .call<{ read?: { text?: string } }>(ref.session, 'agent.read', { target: ref.id, source, format: 'text', ...(lines ? { lines } : {}) })
      .then((r) => r?.read?.text ?? '')

  const parseScreen = caps?.screen?.parse
  const summarize = caps?.screen?.summarize ?? fallback?.screen?.summarize
  const service = caps?.question
  const blockedNow = status === 'blocked'

  // Everything below only reads; it runs side by side.
  const extras = Promise.all([
    blockedNow && parseScreen && service ? service.pending(ctx, agent).catch(() => null) : null,
    blockedNow && parseScreen ? explainCategory(ctx, ref).catch(() => undefined) : undefined,
    // The conversation itself says best what the agent is doing; when blocked, the prompt does.
    blockedNow ? undefined : transcriptSummary(caps, agent, ctx).catch(() => undefined),
  ])
  const [detection, recent] = await Promise.all([
    read('detection').catch(() => ''),
    (opts.recent ? read('recent_unwrapped', 80).catch((err) => (err instanceof HerdrError && err.code === 'agent_not_idle' ? read('visible', 80) : '')) : read('visible')).catch(
      () => '',
    ),
  ])
  const [pending, category, fromTranscript] = await extras

  let parse: ScreenParse | null = null
  if (pending) parse = { question: pending.question, options: pending.options }
  else if (blockedNow && parseScreen) parse = safe(() => parseScreen(detection), null) ?? safe(() => parseScreen(recent), null)

  const title = agent.terminal_title_stripped ?? ''
  const input: SummaryInput = { detection, recent, title, status, blocked: parse ?? undefined }
  let summary = summarize ? safe(() => summarize(input), null) : null
  if (fromTranscript) summary = { transcript: summary?.transcript, ...fromTranscript }
  summary ??= { headline: title || `Agent ${status}`, detail: '' }

  const readMode = caps?.screen?.modes?.read
  const mode = readMode ? safe(() => readMode(detection), undefined) : undefined
  let blocked: CardBlocked | undefined
  if (blockedNow && parseScreen) {
    // A prompt we cannot read still blocks; the last thing the agent said is the best question.
    blocked = parse ? { question: parse.question, options: parse.options } : { question: firstLine(summary.detail), options: [] }
    const cat = pending?.category ?? category
    if (cat) blocked.category = cat
  }
  // Key order as the card's response schema lists the fields (plugins/agent-state, /openapi.json).
  return {
    pane_id: pane,
    agent_kind: kind,
    agent_status: status,
    ...(mode ? { permission_mode: mode } : {}),
    headline: summary.headline || title || `Agent ${status}`,
    detail: summary.detail ?? '',
    ...(blocked ? { blocked } : {}),
    ...(summary.transcript ? { transcript: summary.transcript } : {}),
    parsed: !!parseScreen,
  }
}

/** herdr's detection rule that matched, as the card's coarse category. */
async function explainCategory(ctx: PluginContext, ref: PaneRef): Promise<string | undefined> {
  const r = await ctx.herdr.call<{ explain?: { evaluated_rules?: { id?: string; matched?: boolean }[] } }>(ref.session, 'agent.explain', { target: ref.id })
  const rule = r?.explain?.evaluated_rules?.find((x) => x && x.matched === true && typeof x.id === 'string' && x.id)
  return rule?.id
}

/** The transcript capability's summary, when the kind has a reader that offers one. */
async function transcriptSummary(caps: ReturnType<PluginContext['agentKinds']['get']>, agent: AgentInfo, ctx: PluginContext): Promise<Summary | undefined> {
  const fn = caps?.transcript?.summary
  if (typeof fn !== 'function') return undefined
  const s = await fn(agent, { home: ctx.home, env: ctx.env })
  if (!s || typeof s.headline !== 'string' || !s.headline) return undefined
  return { headline: s.headline, detail: typeof s.detail === 'string' ? s.detail : '', ...(Array.isArray(s.transcript) ? { transcript: s.transcript } : {}) }
}

function firstLine(s: string): string {
  return (
    s
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? ''
  )
}

function safe<T, F>(fn: () => T, fallback: F): T | F {
  try {
    return fn()
  } catch {
    return fallback
  }
}

/** Screen lines shown by the generic summary. */
