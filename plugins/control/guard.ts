import type { CardOption } from '../../lib/card.ts'

/**
 * Guards that make an answer name the question it answers, so a late tap on a card that is no
 * longer on screen cannot type into whatever the agent shows next.
 */

/** The `/send` `seq` guard as given: absent, an integer (or numeric string, as push payloads carry), or invalid. */
export function readSendSeq(seq: unknown): { seq?: number } | { error: string } {
  if (seq === undefined || seq === null) return {}
  if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0) return { seq }
  if (typeof seq === 'string' && /^\s*\d{1,15}\s*$/.test(seq)) return { seq: Number(seq) }
  return { error: "seq must be a whole number: the agent's state_change_seq" }
}

/**
 * Why a `/send` carrying `seq` must not type, or '' when it may: the agent must still be at that
 * state_change_seq (whatever its status), so a reply meant for one question never lands on the next.
 */
export function sendSeqRefusal(agent: { state_change_seq?: unknown } | null, seq: number): string {
  if (!agent) return 'no agent in this pane: a reply with seq needs one'
  const current = typeof agent.state_change_seq === 'number' ? agent.state_change_seq : 0
  return seq === current ? '' : `stale seq: send carried ${seq}, agent now at ${current}`
}

/** An `/approve` option as sent: a 1-based index shown on the card, or an option's key (`esc`). */
export type OptionRef = { index: number } | { key: string }

export function readOptionRef(option: unknown): OptionRef | { error: string } | null {
  if (option === undefined || option === null) return null
  if (typeof option === 'number' && Number.isSafeInteger(option) && option >= 1) return { index: option }
  if (typeof option === 'string' && /^\s*\d{1,3}\s*$/.test(option) && Number(option) >= 1) return { index: Number(option) }
  if (typeof option === 'string' && option.trim() && option.length <= 32) return { key: option.trim().toLowerCase() }
  return { error: "option must be the card's 1-based index or an option's key" }
}

/** The option of the card on screen that `ref` names, or undefined when it is not there. */
export function findOption(options: readonly CardOption[] | undefined, ref: OptionRef): CardOption | undefined {
  if (!options) return undefined
  if ('index' in ref) return options.find((o) => o.index === ref.index)
  return options.find((o) => typeof o.key === 'string' && o.key.toLowerCase() === ref.key)
}

/** The reason an `/approve` with an option applied nothing because that option is not on screen. */
export function optionMissing(ref: OptionRef): string {
  return 'index' in ref ? `option ${ref.index} is not on screen` : `option ${ref.key} is not on screen`
}
