/**
 * What needs the user, across bridges: one count for the title and the app badge, the inbox's
 * groups by need, and the order the "next" walk visits blocked agents in. Pure, for tests.
 */
import type { Agent } from './inbox.ts'

/** A pane's "seen" mark from the bridge (GET /seen): seen up to this state change. */
export interface SeenMark {
  seq: number
  at: number
}
export type SeenMap = Record<string, SeenMark>

/** A finished agent the user has not looked at since it finished (blocked agents always count). */
export function unseen(a: Agent, seen: SeenMap | undefined): boolean {
  if (typeof a.state_change_seq !== 'number') return false
  return (seen?.[a.pane_id]?.seq ?? -1) < a.state_change_seq
}

/** Needs you: blocked (waiting for an answer), or done and not yet seen on any of your devices. */
export function needsYou(a: Agent, seen: SeenMap | undefined): boolean {
  return a.agent_status === 'blocked' || (a.agent_status === 'done' && unseen(a, seen))
}

export function needsYouCount(bridges: Array<{ agents: Agent[]; seen?: SeenMap }>): number {
  let n = 0
  for (const b of bridges) for (const a of b.agents) if (needsYou(a, b.seen)) n++
  return n
}

/** Longest waiting first: the oldest last activity; unknown times last, then the bridge's order. */
export function longestWaitingFirst<T extends Agent>(agents: T[]): T[] {
  const at = (a: Agent) => (typeof a.last_activity_ts === 'number' && a.last_activity_ts > 0 ? a.last_activity_ts : Infinity)
  return agents
    .map((a, i) => ({ a, i }))
    .sort((x, y) => at(x.a) - at(y.a) || x.i - y.i)
    .map((x) => x.a)
}

export interface Candidate {
  bridge: string
  agent: Agent
}

/** The next blocked agent to visit in the walk: the longest waiting one not visited yet, or null (all clear). */
export function nextBlocked(candidates: Candidate[], visited: ReadonlySet<string>): Candidate | null {
  const blocked = candidates.filter((c) => c.agent.agent_status === 'blocked' && !visited.has(walkKey(c.bridge, c.agent.pane_id)))
  const order = longestWaitingFirst(blocked.map((c) => ({ ...c.agent, _c: c })))
  return order.length ? order[0]._c : null
}

export const walkKey = (bridge: string, pane: string) => `${bridge} ${pane}`

/** "just now", "since 14:05", "since 3 Nov 14:05": when a bridge was last live. */
export function sinceText(ts: number | undefined, now: number): string {
  if (!ts) return 'for a while'
  const d = new Date(ts)
  const hm = d.toTimeString().slice(0, 5)
  if (now - ts < 60_000) return 'just now'
  if (new Date(now).toDateString() === d.toDateString()) return `since ${hm}`
  return `since ${d.getDate()} ${d.toLocaleString('en', { month: 'short' })} ${hm}`
}

// TUI status glyphs (⏺ ⎿ ✻ ✳ ⏵ ⏸ and braille spinners) say something only inside the agent's own
// screen; on a card or in an alert they are noise, and a font without them draws empty boxes.
const GLYPHS = /[\u23fa\u23bf\u273b\u2733\u23f5\u23f8\u2722\u2800-\u28ff\u2736\u273d\u23f9]\s*/gu

/** Text for a card headline or an alert: the agent's screen glyphs stripped, spaces collapsed. */
export function plainText(s: string): string {
  return s
    .replace(GLYPHS, '')
    .replace(/[ \t]+/g, ' ')
    .trim()
}

/** The card's detail without the headline it often repeats as its first line. */
export function detailWithoutHeadline(detail: string, headline: string): string {
  const lines = detail.split('\n')
  while (lines.length && plainText(lines[0]) === '') lines.shift()
  if (lines.length && plainText(lines[0]) === plainText(headline)) lines.shift()
  return lines.join('\n').replace(/^\n+/, '')
}
