import { html } from '../ui.ts'
import type { FeedClient } from '../feedclient.ts'
import type { PostResponses } from '../lib/api.ts'
import type { Agent } from '../lib/inbox.ts'
import { agentHref, viewHref } from '../route.ts'
import { ActionButton, ClosePaneButton } from './action.ts'
import { MuteControl } from './mute.ts'

/**
 * An agent's lifecycle from its view: restart (a fresh conversation), stop (asks first; the pane
 * stays as a shell), close the pane; a plain shell offers "Start agent here". Mute (1 h, 8 h, until unmuted) or Unmute.
 * A watch-only (viewer) device gets only the links and Mute, which its role may use.
 */
export function AgentActions({ feed, pane, agent, plain, watchOnly }: { feed: FeedClient; pane: string; agent?: Agent; plain?: boolean; watchOnly?: boolean }) {
  const api = feed.api
  const key = api.bridge.key
  const refresh = (text: string) => (void feed.refetch(), text)
  return html`<div class="agent-actions row" role="group" aria-label="Agent actions">
    ${
      agent &&
      !watchOnly &&
      html`<${ActionButton}
          label="Restart"
          small
          busyLabel="Restarting…"
          confirm=${`Restart ${agent.agent}? Its conversation is lost; it starts fresh in the same folder.`}
          run=${async () => {
            const r = await api.request<PostResponses['/agent/restart']>('/agent/restart', { method: 'POST', json: { pane_id: pane }, timeoutMs: 150_000 })
            return refresh(`Restarted ${r.kind} (${r.name})`)
          }}
        />
        <${ActionButton}
          label="Stop"
          small
          danger
          busyLabel="Stopping…"
          confirm=${`Stop ${agent.agent}? The pane stays open as a shell.`}
          run=${async () => {
            const r = await api.request<PostResponses['/agent/stop']>('/agent/stop', { method: 'POST', json: { pane_id: pane }, timeoutMs: 150_000 })
            return refresh(`Stopped ${r.kind} in ${r.pane_id}`)
          }}
        />`
    }
    ${
      agent &&
      html`<a class="button small ghost" href=${agentHref(key, pane, 'activity')}>Activity</a> <a class="button small ghost" href=${agentHref(key, pane, 'commands')}>Commands</a>`
    }
    ${plain && !watchOnly && html`<a class="button small" href=${viewHref('start', key, { where: 'pane', pane })}>Start agent here</a>`}
    ${!watchOnly && html`<${ClosePaneButton} feed=${feed} pane=${pane} agentKind=${agent?.agent} onClosed=${() => (location.hash = '#/')} />`}
    ${agent && html`<${MuteControl} feed=${feed} pane=${pane} />`}
  </div>`
}
