/**
 * The agent state card (`GET /agent-state`), built from the agent-kind registry so that the card
 * route and push notifications read the same thing without importing a plugin. The parsers live
 * in the plugins that contribute them (plugins/agent-state); this file only orders the reads.
 */
import type { AgentInfo } from './herdr-types.ts'
import type { KindContext } from './kind-context.ts'
import { cleanText, readableLines, screenLines, truncate, type CardOption } from './text.ts'

export type { CardOption }

export interface CardBlocked {
  question: string
  options: CardOption[]
  category?: string
}

export interface Card {
  pane_id: string
  agent_kind: string
  agent_status: string
  permission_mode?: string
  headline: string
  detail: string
  blocked?: CardBlocked
  transcript?: string[]
  parsed: boolean
}

/** What a screen parser found: the question and choices of a blocking prompt. */
export interface ScreenParse {
  question: string
  options: CardOption[]
  /** What is being approved (the command, the file), plain lines. */
  context?: string
}

export interface SummaryInput {
  /** herdr's detection text (the bottom of the screen). */
  detection: string
  /** The visible screen, or scrollback when `?recent=1`. */
  recent: string
  /** The pane's terminal title. */
  title: string
  status: string
  /** The parse of a blocked screen, when the agent is blocked and a prompt was recognised. */
  blocked?: ScreenParse
}

export interface Summary {
  headline: string
  detail: string
  transcript?: string[]
}

/** A question served by the kind's own service rather than drawn on screen. */
export interface PendingQuestion {
  question: string
  options: CardOption[]
  category?: string
  /** Free-form answers are accepted. */
  custom: boolean
}

export type QuestionAnswer = { index: number } | { text: string } | { dismiss: true }

export interface QuestionService {
  /** The pending question, or null when there is none or the service cannot be reached. */
  pending(ctx: KindContext, agent: AgentInfo): Promise<PendingQuestion | null>
  /** Answers the pending question; false when there was nothing this answer could be given to. */
  answer(ctx: KindContext, agent: AgentInfo, answer: QuestionAnswer): Promise<boolean>
}

export type ParseScreen = (screen: string) => ScreenParse | null
export type Summarize = (input: SummaryInput) => Summary

/** The kind used for agents whose own kind contributes no screen summary. */
export const FALLBACK_KIND = 'generic'

export function normStatus(s: unknown): string {
  const v = typeof s === 'string' ? s.trim().toLowerCase() : ''
  return v === 'idle' || v === 'working' || v === 'blocked' || v === 'done' ? v : 'unknown'
}

export const normKind = (k: unknown) => (typeof k === 'string' ? k.trim().toLowerCase() : '')

export const FALLBACK_LINES = 12

/** The generic summary of any screen: its last readable lines (the `generic` kind's). */
export function summarizeGeneric(input: SummaryInput): Summary {
  let ls = readableLines(screenLines(input.recent))
  if (!ls.length) ls = readableLines(screenLines(input.detection))
  const transcript = ls.slice(-FALLBACK_LINES)
  const title = cleanText(input.title)
  return {
    headline: truncate(transcript.at(-1) ?? '') || truncate(title) || `Agent ${input.status}`,
    detail: transcript.join('\n'),
    transcript,
  }
}
