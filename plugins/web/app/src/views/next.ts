import { useEffect, useState } from 'preact/hooks'
import { html } from '../ui.ts'
import type { FeedClient } from '../feedclient.ts'
import { nextBlocked, walkKey, type Candidate } from '../lib/triage.ts'
import { isPlainPane } from '../lib/inbox.ts'
import { AgentView } from './agent.ts'

/**
 * The triage walk: the blocked agent that has waited longest, its card to answer, then "Next"
 * to the following one, until none is left: "All clear". An agent stays on screen after it is
 * answered (no jump while reading); "Next" moves on.
 */
export function NextView({ feeds }: { feeds: Map<string, FeedClient> }) {
  const [visited, setVisited] = useState<Set<string>>(() => new Set())
  const [current, setCurrent] = useState<Candidate | null>(null)
  const candidates: Candidate[] = []
  for (const [bridge, f] of feeds) for (const a of f.snapshot.agents ?? []) candidates.push({ bridge, agent: a })
  const cur = current ?? nextBlocked(candidates, visited)
  // Pinned once shown, so answering it does not swap the screen for the next one.
  useEffect(() => {
    if (!current && cur) setCurrent(cur)
  })
  const left = candidates.filter(
    (c) => c.agent.agent_status === 'blocked' && !visited.has(walkKey(c.bridge, c.agent.pane_id)) && c !== cur && c.agent.pane_id !== cur?.agent.pane_id,
  ).length
  // Shown in the walk is seen, as when the agent is opened from the inbox.
  const shownFeed = cur && feeds.get(cur.bridge)
  const shownSeq = cur && shownFeed?.snapshot.agents?.find((a) => a.pane_id === cur.agent.pane_id)?.state_change_seq
  useEffect(() => {
    if (cur && shownFeed && typeof shownSeq === 'number') shownFeed.markSeen(cur.agent.pane_id, shownSeq)
  }, [cur && walkKey(cur.bridge, cur.agent.pane_id), shownSeq])
  if (!cur)
    return html`<main class="pane view all-clear" aria-labelledby="clear-title">
      <h1 id="clear-title">All clear</h1>
      <p class="muted">No agent is waiting for you.</p>
      <a class="button" href="#/">Back to the inbox</a>
    </main>`
  const feed = feeds.get(cur.bridge)!
  const live = feed.snapshot.agents?.find((a) => a.pane_id === cur.agent.pane_id) ?? cur.agent
  const next = () => {
    const v = new Set(visited)
    v.add(walkKey(cur.bridge, cur.agent.pane_id))
    setVisited(v)
    setCurrent(nextBlocked(candidates, v))
  }
  return html`<div class="triage">
    <div class="triage-bar row" role="group" aria-label="Triage" data-pane=${cur.agent.pane_id}>
      <span class="grow">${left ? `${left} more waiting` : 'Last one waiting'}</span>
      <button class="primary" onClick=${next}>${left ? 'Next' : 'Done'}</button>
    </div>
    <${AgentView}
      key=${walkKey(cur.bridge, cur.agent.pane_id)}
      api=${feed.api}
      feed=${feed}
      bridgeKey=${cur.bridge}
      pane=${cur.agent.pane_id}
      tab="card"
      agent=${live}
      plain=${isPlainPane(feed.snapshot, cur.agent.pane_id)}
    />
  </div>`
}
