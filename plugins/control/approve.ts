/** The outcome of `/approve` before any keystroke, with the exact reason texts clients show. */
export function approveOutcome(agent: { agent_status?: unknown; state_change_seq?: unknown } | null, seq: number): { applied: boolean; reason: string } {
  if (!agent) return { applied: false, reason: 'no such agent' }
  const status = typeof agent.agent_status === 'string' && agent.agent_status ? agent.agent_status : 'unknown'
  if (status !== 'blocked') return { applied: false, reason: `agent is ${status}, not blocked` }
  const current = typeof agent.state_change_seq === 'number' ? agent.state_change_seq : 0
  if (seq !== current) return { applied: false, reason: `stale seq: approve carried ${seq}, agent now at ${current}` }
  return { applied: true, reason: '' }
}

/**
 * The `seq` a client carried: an integer, or the numeric string a push message holds. Anything
 * else reads as 0, as the reference client sends when it has none, which never matches a blocked
 * agent (its seq moved at least once).
 */
export function parseSeq(seq: unknown): number {
  if (typeof seq === 'number' && Number.isSafeInteger(seq)) return seq
  if (typeof seq === 'string' && /^\s*\d{1,15}\s*$/.test(seq)) return Number(seq)
  return 0
}
