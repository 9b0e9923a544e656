import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { html, badge, toast, errText } from '../ui.ts'
import type { Api, GetResponses } from '../lib/api.ts'
import type { Agent } from '../lib/inbox.ts'
import { agentTitle } from '../lib/inbox.ts'
import { detailWithoutHeadline, plainText } from '../lib/triage.ts'
import { agentHref, type Tab } from '../route.ts'
import { capsOf, loadKinds, type KindCaps } from '../lib/kinds.ts'
import { poller, type Poller } from '../lib/poll.ts'
import { TerminalView } from './terminal.ts'
import { TranscriptView } from './transcript.ts'
import { DiffView } from './diff.ts'
import { AgentActions } from './lifecycle.ts'
import { ActivityTab } from './activity.ts'
import { CommandPalette } from './palette.ts'
import type { FeedClient } from '../feedclient.ts'
import { ReadAloud, ReplyBox } from './composer.ts'
import { LastAnswer, Options } from './options.ts'
import { asksForSecret } from '../lib/compose.ts'
import { useWatchOnly } from '../lib/device.ts'

interface Props {
  api: Api
  bridgeKey: string
  pane: string
  tab: Tab
  agent?: Agent
  /** The snapshot lists the pane without an agent: a plain shell, so only the terminal. */
  plain?: boolean
  /** The bridge's feed: lifecycle actions refresh it so their effect shows at once. */
  feed?: FeedClient
}

const TABS: Array<[Tab, string]> = [
  ['card', 'Agent'],
  ['terminal', 'Terminal'],
  ['transcript', 'Transcript'],
  ['diff', 'Changes'],
]
/** Views reached from the action row (not tabs: the four above stay the agent's main views). */
const EXTRA: Tab[] = ['activity', 'commands']

/** The kind's capabilities from the bridge: undefined while loading or from an older bridge. */
function useKindCaps(api: Api, kind: string | undefined): KindCaps | null | undefined {
  const [kinds, setKinds] = useState<Map<string, KindCaps> | null | undefined>(undefined)
  useEffect(() => {
    let live = true
    void loadKinds(api).then((k) => live && setKinds(k))
    return () => void (live = false)
  }, [api])
  return capsOf(kinds, kind)
}

export function AgentView({ api, bridgeKey, pane, tab: asked, agent, plain, feed }: Props) {
  const caps = useKindCaps(api, agent?.agent)
  // A viewer device watches: its write controls are not drawn (the bridge would refuse them).
  const watchOnly = useWatchOnly(api)
  // A kind the bridge reads no transcript for has no transcript tab (unknown: keep it).
  const tabs = plain ? TABS.filter(([t]) => t === 'terminal') : TABS.filter(([t]) => t !== 'transcript' || (caps?.transcript !== false && caps !== null))
  const tab = plain ? 'terminal' : tabs.some(([t]) => t === asked) || EXTRA.includes(asked) ? asked : 'card'
  // The badge shows the newest status seen, from the snapshot or the card, so it never
  // contradicts the card drawn under it (the snapshot can lag an approve by a moment).
  const [status, setStatus] = useState(agent?.agent_status)
  useEffect(() => setStatus(agent?.agent_status), [agent?.agent_status, agent?.state_change_seq])
  return html` <main class="agent-view">
    <header class="agent-head">
      <a class="button ghost" href="#/" aria-label="Back to the inbox">←</a>
      <h1 class="agent-name">${agent ? agentTitle(agent) : pane}</h1>
      ${agent && badge(status ?? agent.agent_status)}
    </header>
    ${feed && html`<${AgentActions} feed=${feed} pane=${pane} agent=${agent} plain=${plain} watchOnly=${watchOnly} />`}
    ${watchOnly && html`<p class="muted small watch-only">Watch-only device: it sees the agents but cannot answer, type or change anything.</p>`}
    <nav class="tabs" aria-label="Agent views">
      ${tabs.map(([t, label]) => html`<a href=${agentHref(bridgeKey, pane, t)} class=${t === tab ? 'tab active' : 'tab'} aria-current=${t === tab ? 'page' : undefined}>${label}</a>`)}
    </nav>
    ${tab === 'card' && html`<${CardView} api=${api} pane=${pane} agent=${agent} bridgeKey=${bridgeKey} caps=${caps} onStatus=${setStatus} watchOnly=${watchOnly} />`}
    ${tab === 'terminal' && html`<${TerminalView} api=${api} pane=${pane} />`}
    ${
      tab === 'transcript' &&
      html`<${TranscriptView} api=${api} pane=${pane} />${
          !watchOnly &&
          html`<${ReplyBox} api=${api} pane=${pane} seq=${agent?.agent_status === 'blocked' && typeof agent.state_change_seq === 'number' ? agent.state_change_seq : undefined} />`
        }`
    }
    ${tab === 'diff' && html`<${DiffView} api=${api} pane=${pane} />`} ${tab === 'activity' && html`<${ActivityTab} api=${api} pane=${pane} bridgeKey=${bridgeKey} />`}
    ${tab === 'commands' && html`<${CommandPalette} api=${api} pane=${pane} watchOnly=${watchOnly} />`}
  </main>`
}

/**
 * The status the card itself shows. Its screen is read fresher than herdr's status report, so a
 * question on screen is "blocked", and a just-answered one no longer is (the agent moves on).
 */
export function cardStatus(c: { agent_status: string; blocked?: unknown }): string {
  if (c.blocked) return 'blocked'
  return c.agent_status === 'blocked' ? 'working' : c.agent_status
}

function CardView({
  api,
  pane,
  agent,
  bridgeKey,
  caps,
  onStatus,
  watchOnly,
}: {
  api: Api
  pane: string
  agent?: Agent
  bridgeKey: string
  caps?: KindCaps | null
  onStatus?: (s: string) => void
  watchOnly?: boolean
}) {
  const [card, setCard] = useState<GetResponses['/agent-state'] | null>(null)
  const [error, setError] = useState('')
  const [draft, setDraft] = useState<string | undefined>(undefined)
  // Bumped when something the card shows may have changed (an action sent, a status change
  // seen in the snapshot): an answer to a read that started before that is dropped.
  const epoch = useRef(0)
  const poll = useRef<Poller | null>(null)
  const load = useCallback(async () => {
    const mine = epoch.current
    try {
      const c = await api.get(`/agent-state?pane=${encodeURIComponent(pane)}`)
      if (mine !== epoch.current) return
      setCard(c)
      if (typeof c?.agent_status === 'string') onStatus?.(cardStatus(c))
      setError('')
    } catch (err) {
      if (mine === epoch.current) setError(errText(err))
    }
  }, [api, pane, onStatus])
  useEffect(() => {
    const p = poller(load, 1500)
    poll.current = p
    void p.now()
    return () => p.stop()
  }, [load])
  /** After an action or a status change: drop reads in flight and read again. */
  const refresh = useCallback(() => {
    epoch.current++
    return poll.current?.now() ?? Promise.resolve()
  }, [])
  const statusKey = `${agent?.agent_status}/${agent?.state_change_seq}`
  const seenKey = useRef(statusKey)
  useEffect(() => {
    if (seenKey.current === statusKey) return
    seenKey.current = statusKey
    // herdr says the agent left the question: its options are spent, whatever the last card said.
    if (agent && agent.agent_status !== 'blocked') setCard((c) => (c?.blocked ? { ...c, blocked: undefined } : c))
    void refresh()
  }, [statusKey])
  // The default option's /approve carries the snapshot's seq for this very question; until the
  // snapshot shows the agent blocked, that seq is unknown (or the previous state's) and the
  // bridge would refuse it as stale.
  const seq = agent?.agent_status === 'blocked' && typeof agent.state_change_seq === 'number' ? agent.state_change_seq : undefined

  async function cycleMode() {
    try {
      const r = await api.post('/agent-mode/cycle', { pane })
      toast(`Permission mode: ${r.permission_mode ?? 'changed'}`)
      await refresh()
    } catch (err) {
      toast(errText(err), 'error')
    }
  }

  const blocked = card?.blocked
  const hasModes = card?.permission_mode !== undefined || caps?.mode_cycle === true
  return html` <section class="card" aria-labelledby="card-headline">
    ${error && html`<p class="error" role="alert">${error}</p>`} ${!card && !error && html`<p class="muted">Loading…</p>`}
    ${
      card &&
      html`
        <h2 id="card-headline" class="headline">${plainText(card.headline || '') || '(nothing yet)'}</h2>
        ${card.detail && detailWithoutHeadline(card.detail, card.headline || '') && html`<pre class="detail">${detailWithoutHeadline(card.detail, card.headline || '')}</pre>`}
        ${
          blocked &&
          html` <div class="blocked" role="group" aria-label="The agent is waiting for an answer">
            ${blocked.question && blocked.question !== card.headline && html`<p class="question">${blocked.question}</p>`}
            ${
              watchOnly
                ? html`<ul class="options-read">
                    ${blocked.options.map((o) => html`<li>${o.label}</li>`)}
                  </ul>`
                : html`<${Options} api=${api} pane=${pane} options=${blocked.options} question=${blocked.question} seq=${seq} onAnswered=${refresh} />`
            }
          </div>`
        }
        <${LastAnswer} pane=${pane} />
        ${!blocked && html`<${ReadAloud} text=${[plainText(card.headline || ''), card.detail].filter(Boolean).join('. ')} />`}
        ${card.parsed === false && html`<p class="muted">No card parser for this agent kind: use the <a href=${agentHref(bridgeKey, pane, 'terminal')}>terminal</a> to act.</p>`}
        ${
          hasModes &&
          html`<div class="mode row">
            <span>Permission mode: <strong class="mode-value">${card.permission_mode ?? 'default'}</strong></span>
            ${!watchOnly && html`<button class="small" onClick=${cycleMode}>Cycle mode</button>`}
          </div>`
        }
      `
    }
    <${Suggestions} api=${api} pane=${pane} status=${agent?.agent_status} bridgeKey=${bridgeKey} onPrompt=${watchOnly ? undefined : setDraft} />
    ${
      !watchOnly &&
      html`<${ReplyBox}
        api=${api}
        pane=${pane}
        draft=${draft}
        onSent=${refresh}
        seq=${blocked ? seq : undefined}
        onStale=${refresh}
        secret=${!!card && asksForSecret(blocked?.question, card.detail, card.headline)}
      />`
    }
  </section>`
}

/** Context chips; without onPrompt (a watch-only device) the ones that would prompt the agent are left out. */
function Suggestions({ api, pane, status, bridgeKey, onPrompt }: { api: Api; pane: string; status?: string; bridgeKey: string; onPrompt?: (p: string) => void }) {
  const [list, setList] = useState<GetResponses['/suggestions']['suggestions']>([])
  useEffect(() => {
    api.get(`/suggestions?pane=${encodeURIComponent(pane)}`).then(
      (r) => setList(Array.isArray(r?.suggestions) ? r.suggestions.filter((s) => s?.label) : []),
      () => setList([]),
    )
  }, [api, pane, status])
  const act = (s: GetResponses['/suggestions']['suggestions'][number]) => {
    const p = s.params ?? {}
    if ((s.performer === 'agent' || s.action === 'prompt_agent') && p.prompt) return onPrompt?.(String(p.prompt))
    if (s.action === 'open_url' && p.url) return window.open(String(p.url), '_blank', 'noopener')
    if (s.action === 'open_diff') return (location.hash = agentHref(bridgeKey, pane, 'diff'))
    if (s.action === 'show_note' && p.note) return toast(String(p.note))
  }
  const usable = list.filter(
    (s) => (s.action === 'open_url' && s.params?.url) || s.action === 'open_diff' || (s.action === 'show_note' && s.params?.note) || (onPrompt && s.params?.prompt),
  )
  if (!usable.length) return null
  return html`<div class="chips" role="group" aria-label="Suggestions">
    ${usable.map((s) => html`<button class="chip" title=${s.detail || s.label} onClick=${() => act(s)}>${s.label}</button>`)}
  </div>`
}
