import { useEffect, useState } from 'preact/hooks'
import { html, badge } from '../ui.ts'
import type { FeedClient } from '../feedclient.ts'
import { agentTitle, inboxGroups, relativeTime, workspaceLabel } from '../lib/inbox.ts'
import { longestWaitingFirst, unseen } from '../lib/triage.ts'
import type { SavedBridge } from '../lib/bridges.ts'
import { agentHref } from '../route.ts'

interface Props {
  bridges: SavedBridge[]
  feeds: Map<string, FeedClient>
  onRemove: (key: string) => void
  /** Beside a detail view (two panes): the same list, narrower. */
  compact?: boolean
}

/** One column per paired bridge: a bridge's ranks are never compared with another's. */
export function InboxView({ bridges, feeds, onRemove, compact }: Props) {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000)
    return () => clearInterval(t)
  }, [])
  const Tag = compact ? 'div' : 'main'
  return html` <${Tag} class=${compact ? 'inbox compact' : 'inbox'} aria-label="Agents">
    ${bridges.map((b) => html`<${BridgeColumn} key=${b.key} bridge=${b} feed=${feeds.get(b.key)} now=${now} onRemove=${onRemove} />`)}
  </${Tag}>`
}

const STATUS_LABEL: Record<string, string> = { live: 'live', connecting: 'connecting…', offline: 'unreachable', unpaired: 'not paired', 'no-herdr': 'no herdr' }

/** Why a bridge shows nothing, and what to do about it. */
function FeedState({ feed, status }: { feed?: FeedClient; status: string }) {
  if (!feed || status === 'live') return null
  if (status === 'connecting') return html`<p class="muted state" data-state="connecting">Connecting to the bridge…</p>`
  const retry = html`<button class="small" onClick=${() => feed.retryNow()}>Retry now</button>`
  if (status === 'unpaired')
    return html`<div class="state error" role="alert" data-state="unpaired">
      <p>The bridge refused this device's token: it was revoked, or the bridge's data was reset.</p>
      <a class="button small primary" href="#/pair">Pair again</a>
    </div>`
  if (status === 'no-herdr')
    return html`<div class="state warn" role="alert" data-state="no-herdr">
      <p>${feed.error}</p>
      <p class="muted small">Retrying by itself.</p>
      ${retry}
    </div>`
  return html`<div class="state error" role="alert" data-state="offline">
    <p>${feed.error || 'The bridge does not answer.'}</p>
    <p class="muted small">Retrying by itself.</p>
    ${retry}
  </div>`
}

function BridgeColumn({ bridge, feed, now, onRemove }: { bridge: SavedBridge; feed?: FeedClient; now: number; onRemove: (k: string) => void }) {
  const snap = feed?.snapshot ?? {}
  const agents = snap.agents ?? []
  // Grouped by need as the bridge ranks them; those waiting for an answer, longest waiting first.
  const groups = inboxGroups(agents).map((g) => (g.rank === 0 ? { ...g, agents: longestWaitingFirst(g.agents) } : g))
  const status = feed?.status ?? 'connecting'
  const shells = (snap.panes ?? []).filter((p) => !p.agent)
  return html` <section class=${feed?.stale ? 'bridge stale' : 'bridge'} aria-labelledby=${`bt-${bridge.key}`} data-bridge=${bridge.key}>
    <header class="bridge-head">
      <h2 id=${`bt-${bridge.key}`}>${bridge.name || bridge.url}</h2>
      <span class=${`conn conn-${status}`} role="status">${STATUS_LABEL[status] ?? status}</span>
      <button
        class="ghost small"
        onClick=${() => confirm(`Forget ${bridge.name || bridge.url} on this device?`) && onRemove(bridge.key)}
        aria-label=${`Forget ${bridge.name || bridge.url}`}
      >
        Forget
      </button>
    </header>
    <${FeedState} feed=${feed} status=${status} />
    ${feed?.stale && html`<p class="stale-note muted small" data-stale="true">Last known state, not live.</p>`}
    ${
      status === 'live' &&
      agents.length === 0 &&
      html`<div class="empty">
        <p><strong>No agents running.</strong></p>
        <p class="muted">Start one in herdr (for example <code>herdr agent start</code>, or run a coding agent in a pane) and it shows up here.</p>
      </div>`
    }
    ${groups.map(
      (g) =>
        html` <div class="group" role="group" aria-label=${g.label}>
          <h3 class="group-title">${g.label} <span class="count">${g.agents.length}</span></h3>
          <ul class="agents">
            ${g.agents.map((a) => {
              const when = relativeTime(a.last_activity_ts, now)
              const ws = workspaceLabel(snap, a)
              return html` <li key=${a.pane_id}>
                <a
                  class=${`agent-row status-${a.agent_status}`}
                  href=${agentHref(bridge.key, a.pane_id)}
                  data-pane=${a.pane_id}
                  data-status=${a.agent_status}
                  data-unseen=${unseen(a, feed?.seen) ? 'true' : undefined}
                >
                  <span class="agent-main">
                    <span class="agent-title">${unseen(a, feed?.seen) && html`<span class="dot" title="Not seen yet" aria-label="new"></span>`}${agentTitle(a)}</span>
                    <span class="agent-meta">
                      <span class="kind">${a.agent}</span>
                      ${ws && html`<span class="ws" title="Workspace">${ws}</span>`} ${a.branch && html`<span class="branch" title="Branch">⎇ ${a.branch}</span>`}
                      ${a.subagents && a.subagents.running > 0 && html`<span class="subs">${a.subagents.running} subagent${a.subagents.running > 1 ? 's' : ''}</span>`}
                    </span>
                  </span>
                  <span class="agent-side">
                    ${badge(a.agent_status)} ${when && html`<time class="when" datetime=${new Date(a.last_activity_ts!).toISOString()}>${when}</time>`}
                  </span>
                </a>
              </li>`
            })}
          </ul>
        </div>`,
    )}
    ${
      shells.length > 0 &&
      html`<div class="group" role="group" aria-label="Shells">
        <h3 class="group-title">Shells <span class="count">${shells.length}</span></h3>
        <ul class="agents shells">
          ${shells.map(
            (p) =>
              html`<li key=${p.pane_id}>
                <a class="shell-row" href=${agentHref(bridge.key, p.pane_id, 'terminal')} data-pane=${p.pane_id}>
                  <span class="agent-title">Shell ${p.pane_id}</span>
                  <span class="agent-meta">${p.cwd ?? ''}</span>
                </a>
              </li>`,
          )}
        </ul>
      </div>`
    }
  </section>`
}
