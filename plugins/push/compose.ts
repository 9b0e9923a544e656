/**
 * What goes into an alert: the text a person reads on a lock screen, the blocked card's parts, and
 * the app's data keys (built by lib/notify/alert-data.ts, which the FCM channel uses too); the
 * FCM messages around them are the fcm notifier's.
 */
import { termSafe } from '../../lib/strings.ts'
import { alertData, type AlertCardParts } from '../../lib/notify/alert-data.ts'
import { isObj } from '../../lib/transcript/entry.ts'

export const BODY_MAX = 240

export interface CardOption {
  index: number
  label: string
  selected: boolean
  key?: string
}

/** The parts of the live card an alert uses; every field is best effort. */
export interface AlertCard {
  question?: string
  options?: CardOption[]
  category?: string
  headline?: string
  detail?: string
}

export interface AlertInput {
  serverId: string
  serverName: string
  /** Client-facing pane id (session-qualified when not the default session). */
  pane: string
  status: 'blocked' | 'done'
  /** Undefined when the agent could not be read; the key is then left out rather than guessed. */
  seq?: number
  agentTitle: string
  card?: AlertCard | null
}

export interface Alert {
  tag: string
  status: 'blocked' | 'done'
  title: string
  body: string
  /** Data keys shared by both renders (without `render`). */
  data: Record<string, string>
  /** The blocked card's question, options and category, handed to every channel (absent when done). */
  card: AlertCardParts
}

export const tagOf = (serverId: string, pane: string) => `${serverId}/${pane}`

/** Cuts to `max` code points (never inside a surrogate pair), ending with an ellipsis when cut. */
export function capText(s: string, max = BODY_MAX): string {
  const chars = Array.from(s)
  return chars.length <= max ? s : chars.slice(0, max - 1).join('') + '…'
}

/** One line of outside text (a pane title, a question from the screen), escaped for terminals (lib/strings.ts). */
const oneLine = (s: string | undefined) => termSafe((s ?? '').replace(/\s+/g, ' ').trim())

export function composeTitle(serverName: string, agentTitle: string, pane: string): string {
  const who = oneLine(agentTitle) || pane
  const server = oneLine(serverName)
  return server ? `${server} · ${who}` : who
}

/** "Needs you — <question> · 1. Yes / 2. No" or "Finished — <headline>". */
export function composeBody(status: 'blocked' | 'done', card?: AlertCard | null): string {
  if (status === 'blocked') {
    const q = oneLine(card?.question)
    let body = q ? `Needs you — ${q}` : 'Needs you'
    const opts = (card?.options ?? [])
      .slice(0, 4)
      .map((o) => (o.index > 0 ? `${o.index}. ${oneLine(o.label)}` : oneLine(o.label)))
      .filter(Boolean)
    if (q && opts.length) body += ` · ${opts.join(' / ')}`
    return capText(body)
  }
  const firstDetail = (card?.detail ?? '')
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean)
  const what = oneLine(card?.headline) || oneLine(firstDetail)
  return capText(what ? `Finished — ${what}` : 'Finished')
}

export function composeAlert(input: AlertInput): Alert {
  const title = composeTitle(input.serverName, input.agentTitle, input.pane)
  const body = composeBody(input.status, input.card)
  const c = input.card
  const card: AlertCardParts = {}
  if (input.status === 'blocked' && c) {
    if (c.question?.trim()) card.question = c.question.trim()
    if (c.options?.length) card.options = c.options.map((o) => ({ index: o.index, label: o.label, selected: !!o.selected, ...(o.key ? { key: o.key } : {}) }))
    if (c.category) card.category = c.category
  }
  const data = alertData({
    pane: input.pane,
    status: input.status,
    serverId: input.serverId,
    serverName: input.serverName,
    agentTitle: oneLine(input.agentTitle),
    title,
    body,
    seq: input.seq,
    ...card,
  })
  return { tag: tagOf(input.serverId, input.pane), status: input.status, title, body, data, card }
}

/**
 * The label of the option a confirm keystroke picks (the selected one), when a blocked card has
 * one: web push offers it as an Approve action. Long labels become "Approve".
 */
export function approveLabel(card?: AlertCard | null): string | undefined {
  const o = card?.options?.find((x) => x.selected)
  if (!o) return undefined
  const label = oneLine(o.label)
  return label && Array.from(label).length <= 16 ? label : 'Approve'
}

/** A card as lib/card.ts returns it (the `/agent-state` shape), reduced to what alerts use. */
export function cardForAlert(card: unknown): AlertCard | null {
  if (!isObj(card)) return null
  const b: Record<string, unknown> = isObj(card.blocked) ? card.blocked : {}
  const options = Array.isArray(b.options)
    ? (b.options as unknown[]).flatMap((o): CardOption[] => {
        if (!isObj(o) || typeof o.label !== 'string') return []
        const { index, key } = o
        return [
          {
            index: typeof index === 'number' && Number.isInteger(index) ? index : 0,
            label: o.label,
            selected: !!o.selected,
            ...(typeof key === 'string' && key ? { key } : {}),
          },
        ]
      })
    : undefined
  return {
    question: typeof b.question === 'string' ? b.question : undefined,
    options,
    category: typeof b.category === 'string' ? b.category : undefined,
    headline: typeof card.headline === 'string' ? card.headline : undefined,
    detail: typeof card.detail === 'string' ? card.detail : undefined,
  }
}
