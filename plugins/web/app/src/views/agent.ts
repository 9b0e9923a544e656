import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { html, badge, toast, errText } from '../ui.ts'
import type { Api } from '../lib/api.ts'
import type { Agent } from '../lib/inbox.ts'
import { agentTitle } from '../lib/inbox.ts'
import { agentHref, type Tab } from '../route.ts'
import { completions, commandText, slashQuery, type Command } from '../lib/commands.ts'
import { capsOf, loadKinds, type KindCaps } from '../lib/kinds.ts'
import { poller, type Poller } from '../lib/poll.ts'
import { TerminalView } from './terminal.ts'
import { TranscriptView } from './transcript.ts'
import { DiffView } from './diff.ts'
import { MuteToggle } from './mute.ts'

interface Props {
  api: Api
  bridgeKey: string
  pane: string
  tab: Tab
  agent?: Agent
  /** The snapshot lists the pane without an agent: a plain shell, so only the terminal. */
  plain?: boolean
}

const TABS: Array<[Tab, string]> = [
  ['card', 'Agent'],
  ['terminal', 'Terminal'],
  ['transcript', 'Transcript'],
  ['diff', 'Changes'],
]

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

export function AgentView({ api, bridgeKey, pane, tab: asked, agent, plain }: Props) {
  const caps = useKindCaps(api, agent?.agent)
  // A kind the bridge reads no transcript for has no transcript tab (unknown: keep it).
  const tabs = plain ? TABS.filter(([t]) => t === 'terminal') : TABS.filter(([t]) => t !== 'transcript' || (caps?.transcript !== false && caps !== null))
  const tab = plain ? 'terminal' : tabs.some(([t]) => t === asked) ? asked : 'card'
  // The badge shows the newest status seen, from the snapshot or the card, so it never
  // contradicts the card drawn under it (the snapshot can lag an approve by a moment).
  const [status, setStatus] = useState(agent?.agent_status)
  useEffect(() => setStatus(agent?.agent_status), [agent?.agent_status, agent?.state_change_seq])
  return html` <main class="agent-view">
    <header class="agent-head">
      <a class="button ghost" href="#/" aria-label="Back to the inbox">←</a>
      <h1 class="agent-name">${agent ? agentTitle(agent) : pane}</h1>
      ${agent && badge(status ?? agent.agent_status)} ${!plain && html`<${MuteToggle} api=${api} pane=${pane} />`}
    </header>
    <nav class="tabs" aria-label="Agent views">
      ${tabs.map(([t, label]) => html`<a href=${agentHref(bridgeKey, pane, t)} class=${t === tab ? 'tab active' : 'tab'} aria-current=${t === tab ? 'page' : undefined}>${label}</a>`)}
    </nav>
    ${tab === 'card' && html`<${CardView} api=${api} pane=${pane} agent=${agent} bridgeKey=${bridgeKey} caps=${caps} onStatus=${setStatus} />`}
    ${tab === 'terminal' && html`<${TerminalView} api=${api} pane=${pane} />`}
    ${tab === 'transcript' && html`<${TranscriptView} api=${api} pane=${pane} /><${ReplyBox} api=${api} pane=${pane} />`}
    ${tab === 'diff' && html`<${DiffView} api=${api} pane=${pane} />`}
  </main>`
}

const CLIP = html`<svg
  width="18"
  height="18"
  viewBox="0 0 24 24"
  fill="none"
  stroke="currentColor"
  stroke-width="2"
  stroke-linecap="round"
  stroke-linejoin="round"
  aria-hidden="true"
>
  <path d="M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5" />
</svg>`

interface Option {
  index: number
  label: string
  selected?: boolean
  key?: string
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
}: {
  api: Api
  pane: string
  agent?: Agent
  bridgeKey: string
  caps?: KindCaps | null
  onStatus?: (s: string) => void
}) {
  const [card, setCard] = useState<any>(null)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
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
    if (agent && agent.agent_status !== 'blocked') setCard((c: any) => (c?.blocked ? { ...c, blocked: undefined } : c))
    void refresh()
  }, [statusKey])
  // The default option's /approve carries the snapshot's seq for this very question; until the
  // snapshot shows the agent blocked, that seq is unknown (or the previous state's) and the
  // bridge would refuse it as stale.
  const seq = agent?.agent_status === 'blocked' && typeof agent.state_change_seq === 'number' ? agent.state_change_seq : undefined

  async function choose(o: Option) {
    setBusy(true)
    try {
      if (o.selected) {
        if (seq === undefined) return
        const r = await api.post('/approve', { agent: pane, seq })
        if (r.applied === true) toast(`Chose “${o.label}”`)
        else toast(r.reason || 'not applied', 'error')
      } else if (o.key && !o.index) await api.post('/send', { pane, key: o.key })
      else await api.post('/send', { pane, text: `${o.index}\n` })
      await refresh()
    } catch (err) {
      toast(errText(err), 'error')
    } finally {
      setBusy(false)
    }
  }

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
        <h2 id="card-headline" class="headline">${card.headline || '(nothing yet)'}</h2>
        ${card.detail && html`<pre class="detail">${card.detail}</pre>`}
        ${
          blocked &&
          html` <div class="blocked" role="group" aria-label="The agent is waiting for an answer">
            ${blocked.question && blocked.question !== card.headline && html`<p class="question">${blocked.question}</p>`}
            <div class="options">
              ${(blocked.options as Option[]).map(
                (o) =>
                  html`<button
                    class=${o.selected ? 'option primary' : 'option'}
                    disabled=${busy || (o.selected && seq === undefined)}
                    title=${o.selected && seq === undefined ? 'Waiting for the bridge to report this question' : undefined}
                    onClick=${() => choose(o)}
                    data-default=${o.selected ? 'true' : undefined}
                  >
                    ${o.index > 0 && html`<span class="num" aria-hidden="true">${o.index}</span>`}<span>${o.label}</span>${o.key && !o.index ? html` <kbd>${o.key}</kbd>` : ''}
                  </button>`,
              )}
            </div>
          </div>`
        }
        ${card.parsed === false && html`<p class="muted">No card parser for this agent kind: use the <a href=${agentHref(bridgeKey, pane, 'terminal')}>terminal</a> to act.</p>`}
        ${
          hasModes &&
          html`<div class="mode row">
            <span>Permission mode: <strong class="mode-value">${card.permission_mode ?? 'default'}</strong></span>
            <button class="small" onClick=${cycleMode}>Cycle mode</button>
          </div>`
        }
      `
    }
    <${Suggestions} api=${api} pane=${pane} status=${agent?.agent_status} bridgeKey=${bridgeKey} onPrompt=${setDraft} />
    <${ReplyBox} api=${api} pane=${pane} draft=${draft} onSent=${refresh} />
  </section>`
}

function Suggestions({ api, pane, status, bridgeKey, onPrompt }: { api: Api; pane: string; status?: string; bridgeKey: string; onPrompt: (p: string) => void }) {
  const [list, setList] = useState<any[]>([])
  useEffect(() => {
    api.get(`/suggestions?pane=${encodeURIComponent(pane)}`).then(
      (r) => setList(Array.isArray(r?.suggestions) ? r.suggestions.filter((s: any) => s?.label) : []),
      () => setList([]),
    )
  }, [api, pane, status])
  const act = (s: any) => {
    const p = s.params ?? {}
    if ((s.performer === 'agent' || s.action === 'prompt_agent') && p.prompt) return onPrompt(String(p.prompt))
    if (s.action === 'open_url' && p.url) return window.open(String(p.url), '_blank', 'noopener')
    if (s.action === 'open_diff') return (location.hash = agentHref(bridgeKey, pane, 'diff'))
    if (s.action === 'show_note' && p.note) return toast(String(p.note))
  }
  const usable = list.filter((s) => (s.action === 'open_url' && s.params?.url) || s.action === 'open_diff' || (s.action === 'show_note' && s.params?.note) || s.params?.prompt)
  if (!usable.length) return null
  return html`<div class="chips" role="group" aria-label="Suggestions">
    ${usable.map((s) => html`<button class="chip" title=${s.detail || s.label} onClick=${() => act(s)}>${s.label}</button>`)}
  </div>`
}

/**
 * The reply box: text ending in "\r" submits; a lone "/word" completes slash commands from
 * GET /commands; attachments upload to /image or /file and insert the returned path.
 */
export function ReplyBox({ api, pane, draft, onSent }: { api: Api; pane: string; draft?: string; onSent?: () => void }) {
  const [text, setText] = useState('')
  const [commands, setCommands] = useState<Command[]>([])
  const [active, setActive] = useState(0)
  const [busy, setBusy] = useState(false)
  const area = useRef<HTMLTextAreaElement>(null)
  const file = useRef<HTMLInputElement>(null)
  useEffect(() => {
    api.get(`/commands?pane=${encodeURIComponent(pane)}`).then(
      (r) => setCommands(Array.isArray(r?.commands) ? r.commands : []),
      () => setCommands([]),
    )
  }, [api, pane])
  useEffect(() => {
    if (draft !== undefined) {
      setText(draft)
      area.current?.focus()
    }
  }, [draft])
  const q = slashQuery(text)
  const matches = q === null ? [] : completions(commands, q)
  const open = matches.length > 0

  async function send() {
    setBusy(true)
    try {
      await api.post('/send', { pane, text: text + '\r' })
      setText('')
      onSent?.()
    } catch (err) {
      toast(errText(err), 'error')
    } finally {
      setBusy(false)
    }
  }

  function pick(c: Command) {
    setText(commandText(c))
    setActive(0)
    area.current?.focus()
  }

  function onKey(e: KeyboardEvent) {
    if (open && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault()
      setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length)
    } else if (open && (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey))) {
      e.preventDefault()
      pick(matches[Math.min(active, matches.length - 1)])
    } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault()
      if (!busy) void send()
    } else if (open && e.key === 'Escape') setText(text + ' ')
  }

  async function attach(f: File) {
    const isImage = /^image\/(png|jpeg|gif|webp)$/.test(f.type)
    setBusy(true)
    try {
      const r = await api.request(`/${isImage ? 'image' : 'file'}?pane=${encodeURIComponent(pane)}`, {
        method: 'POST',
        body: f,
        type: 'application/octet-stream',
        timeoutMs: 90_000,
      })
      setText((t) => (t && !t.endsWith(' ') ? t + ' ' : t) + r.path + ' ')
      toast(`Attached ${f.name}`)
      area.current?.focus()
    } catch (err) {
      toast(errText(err), 'error')
    } finally {
      setBusy(false)
      if (file.current) file.current.value = ''
    }
  }

  return html` <form class="reply" onSubmit=${(e: Event) => (e.preventDefault(), send())}>
    ${
      open &&
      html`<ul class="completions" role="listbox" id="slash-list" aria-label="Slash commands">
        ${matches.map(
          (c, i) =>
            html`<li
              role="option"
              id=${`slash-${i}`}
              aria-selected=${i === active}
              class=${i === active ? 'active' : ''}
              onMouseDown=${(e: Event) => (e.preventDefault(), pick(c))}
            >
              <strong>/${c.name.replace(/^\//, '')}</strong>${c.argument_hint && html` <span class="muted">${c.argument_hint}</span>`}<br /><span class="muted small"
                >${c.description}</span
              >
            </li>`,
        )}
      </ul>`
    }
    <label class="sr-only" for="reply-text">Reply to the agent</label>
    <textarea
      id="reply-text"
      ref=${area}
      rows="2"
      placeholder="Reply… (/ for commands)"
      value=${text}
      role="combobox"
      aria-expanded=${open}
      aria-controls="slash-list"
      aria-autocomplete="list"
      aria-activedescendant=${open ? `slash-${active}` : undefined}
      onInput=${(e: any) => (setText(e.currentTarget.value), setActive(0))}
      onKeyDown=${onKey}
    ></textarea>
    <div class="reply-actions">
      <input
        type="file"
        ref=${file}
        class="sr-only"
        id="attach-file"
        accept="image/png,image/jpeg,image/gif,image/webp,application/pdf,.docx,.pptx"
        onChange=${(e: any) => e.currentTarget.files?.[0] && attach(e.currentTarget.files[0])}
      />
      <label
        for="attach-file"
        class="button ghost"
        title="Attach an image or document"
        aria-label="Attach an image or document"
        tabindex="0"
        onKeyDown=${(e: KeyboardEvent) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), file.current?.click())}
        >${CLIP}</label
      >
      <button type="submit" class="primary" disabled=${busy}>Send</button>
    </div>
  </form>`
}
