import { useEffect, useState } from 'preact/hooks'
import { html, errText, fieldValue } from '../ui.ts'
import type { FeedClient } from '../feedclient.ts'
import type { PostResponses } from '../lib/api.ts'
import { agentHref } from '../route.ts'
import { ActionButton } from './action.ts'
import { FolderPicker } from './browse.ts'
import { useWatchOnly } from '../lib/device.ts'
import { loadKinds, type KindCaps } from '../lib/kinds.ts'

interface Available {
  agents: Array<{ kind: string; path: string; state_reporting: boolean }>
  known_kinds: string[]
}

type Where = 'tab' | 'worktree' | 'folder' | 'pane'

const WHERE_LABEL: Record<Where, string> = {
  tab: 'A new tab in a space',
  worktree: 'A new worktree (its own branch)',
  folder: 'A folder on the host (a new space)',
  pane: 'An idle shell pane',
}

/** herdr's answer to worktree.create and workspace.create: the new space's first pane. */
type HerdrMade = { result: { root_pane?: { pane_id?: string } } }

/** What POST /agent/start needs for each place: a pane to type into, made first when it is new. */
async function targetFor(feed: FeedClient, where: Where, f: { workspace: string; branch: string; folder: string; pane: string }) {
  const api = feed.api
  if (where === 'tab') return { workspace_id: f.workspace }
  if (where === 'pane') return { pane_id: f.pane }
  if (where === 'worktree') {
    const r = await api.post<HerdrMade>('/herdr', {
      method: 'worktree.create',
      params: { workspace_id: f.workspace, ...(f.branch.trim() ? { branch: f.branch.trim() } : {}) },
    })
    const pane = r.result?.root_pane?.pane_id
    if (!pane) throw new Error('herdr made the worktree but named no pane in it')
    return { pane_id: pane as string }
  }
  const r = await api.post<HerdrMade>('/herdr', { method: 'workspace.create', params: { cwd: f.folder } })
  const pane = r.result?.root_pane?.pane_id
  if (!pane) throw new Error('herdr made the space but named no pane in it')
  return { pane_id: pane as string }
}

/**
 * Start an agent of any kind herdr offers on the host (GET /agents/available): in a new tab of a
 * space, a new worktree (`worktree.create` through POST /herdr), a folder chosen with GET /browse
 * (`workspace.create`), or an idle shell; with a name and a first prompt (POST /agent/start).
 */
export function StartView({ feed, params }: { feed: FeedClient; params: URLSearchParams }) {
  // A viewer device cannot start agents: a note instead of the form.
  if (useWatchOnly(feed.api))
    return html`<main class="pane view" aria-labelledby="start-title">
      <h1 id="start-title">Start an agent</h1>
      <p class="muted small watch-only">Watch-only device: it cannot start agents.</p>
    </main>`
  return html`<${StartForm} feed=${feed} params=${params} />`
}

function StartForm({ feed, params }: { feed: FeedClient; params: URLSearchParams }) {
  const api = feed.api
  const [avail, setAvail] = useState<Available | null>(null)
  const [error, setError] = useState('')
  const workspaces = feed.snapshot.workspaces ?? []
  const shells = (feed.snapshot.panes ?? []).filter((p) => !p.agent)
  const [kind, setKind] = useState('')
  const [where, setWhere] = useState<Where>((params.get('where') as Where) || 'tab')
  const [workspace, setWorkspace] = useState(params.get('ws') ?? '')
  const [pane, setPane] = useState(params.get('pane') ?? '')
  const [branch, setBranch] = useState('')
  const [folder, setFolder] = useState('')
  const [name, setName] = useState('')
  const [prompt, setPrompt] = useState('')
  const [started, setStarted] = useState<{ pane_id: string; kind: string } | null>(null)
  // The kind's start options (GET /agent-kinds), set per kind; empty means the kind's default.
  const [caps, setCaps] = useState<Map<string, KindCaps> | null>(null)
  const [options, setOptions] = useState<Record<string, Record<string, string>>>({})
  useEffect(() => void loadKinds(api).then(setCaps), [api])
  const declared = caps?.get(kind)?.start_options ?? []
  const chosen = Object.fromEntries(declared.map((o) => [o.name, (options[kind]?.[o.name] ?? '').trim()]).filter(([, v]) => v))
  const setOption = (name: string, value: string) => setOptions((all) => ({ ...all, [kind]: { ...all[kind], [name]: value } }))
  useEffect(() => {
    api.get('/agents/available').then(
      (r) => {
        setAvail(r)
        setKind((k) => k || r.agents[0]?.kind || '')
      },
      (err) => setError(errText(err)),
    )
  }, [api])
  useEffect(() => {
    if (!workspace && workspaces[0]) setWorkspace(workspaces[0].workspace_id)
    if (!pane && shells[0]) setPane(shells[0].pane_id)
  }, [workspaces.length, shells.length])

  const ready = !!kind && (where === 'tab' || where === 'worktree' ? !!workspace : where === 'folder' ? !!folder : !!pane)
  async function start(): Promise<string> {
    const target = await targetFor(feed, where, { workspace, branch, folder, pane })
    const r = await api.request<PostResponses['/agent/start']>('/agent/start', {
      method: 'POST',
      json: {
        kind,
        ...target,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(prompt.trim() ? { prompt: prompt.trim() } : {}),
        ...(Object.keys(chosen).length ? { options: chosen } : {}),
      },
      timeoutMs: 150_000,
    })
    setStarted({ pane_id: r.pane_id, kind: r.kind })
    // Shown at once: the feed reads the snapshot now rather than on its next event.
    void feed.refetch()
    return `Started ${r.kind} (${r.name}) in ${r.pane_id}${r.prompt_error ? `; the prompt was not sent: ${r.prompt_error}` : r.prompt_sent ? ', prompt sent' : ''}`
  }

  return html`<main class="pane view start-view" aria-labelledby="start-title">
    <h1 id="start-title">Start an agent</h1>
    ${error && html`<p class="error" role="alert">${error}</p>`} ${!avail && !error && html`<p class="muted">Reading the agents installed on the host…</p>`}
    ${
      avail &&
      html`<div class="stack form">
        ${
          avail.agents.length === 0
            ? html`<p class="muted">No agent herdr knows (${avail.known_kinds.join(', ')}) is installed on this host's PATH.</p>`
            : html`<label
                >Agent
                <select aria-label="Agent kind" value=${kind} onChange=${(e: Event) => setKind(fieldValue(e))}>
                  ${avail.agents.map((a) => html`<option value=${a.kind}>${a.kind}${a.state_reporting ? '' : ' (no status reports)'}</option>`)}
                </select>
              </label>`
        }
        ${
          declared.length > 0 &&
          html`<fieldset class="kind-options">
            <legend>${kind} options <span class="muted small">(empty: ${kind}'s own default)</span></legend>
            ${declared.map((o) =>
              o.values
                ? html`<label
                    >${o.label}
                    <select aria-label=${o.label} value=${options[kind]?.[o.name] ?? ''} onChange=${(e: Event) => setOption(o.name, fieldValue(e))}>
                      <option value="">(not set)</option>
                      ${o.values.map((v) => html`<option value=${v}>${v}</option>`)}
                    </select>
                  </label>`
                : html`<label
                    >${o.label}
                    <input
                      aria-label=${o.label}
                      value=${options[kind]?.[o.name] ?? ''}
                      placeholder=${o.hint ? `e.g. ${o.hint}` : ''}
                      onInput=${(e: Event) => setOption(o.name, fieldValue(e))}
                      autocapitalize="off"
                      spellcheck=${false}
                    />
                  </label>`,
            )}
          </fieldset>`
        }
        <fieldset class="where">
          <legend>Where</legend>
          ${(Object.keys(WHERE_LABEL) as Where[]).map(
            (w) => html`<label class="radio"><input type="radio" name="where" value=${w} checked=${where === w} onChange=${() => setWhere(w)} /> ${WHERE_LABEL[w]}</label>`,
          )}
        </fieldset>
        ${
          (where === 'tab' || where === 'worktree') &&
          html`<label
            >Space
            <select aria-label="Space" value=${workspace} onChange=${(e: Event) => setWorkspace(fieldValue(e))}>
              ${workspaces.map((w) => html`<option value=${w.workspace_id}>${w.label || w.workspace_id}</option>`)}
            </select>
          </label>`
        }
        ${
          where === 'worktree' &&
          html`<label
            >Branch <span class="muted small">(empty: herdr picks a name)</span>
            <input aria-label="Branch" value=${branch} onInput=${(e: Event) => setBranch(fieldValue(e))} placeholder="feature/my-change" autocapitalize="off" spellcheck=${false} />
          </label>`
        }
        ${where === 'folder' && html`<${FolderPicker} api=${api} value=${folder} onPick=${setFolder} />`}
        ${
          where === 'pane' &&
          (shells.length
            ? html`<label
                >Shell pane
                <select aria-label="Shell pane" value=${pane} onChange=${(e: Event) => setPane(fieldValue(e))}>
                  ${shells.map((p) => html`<option value=${p.pane_id}>${p.pane_id}</option>`)}
                </select>
              </label>`
            : html`<p class="muted">No idle shell pane: pick another place.</p>`)
        }
        <label
          >Name <span class="muted small">(optional: a lowercase letter, then a-z 0-9 _ -)</span>
          <input aria-label="Name" value=${name} onInput=${(e: Event) => setName(fieldValue(e))} autocapitalize="off" spellcheck=${false} />
        </label>
        <label
          >First prompt <span class="muted small">(optional)</span>
          <textarea aria-label="First prompt" rows="3" value=${prompt} onInput=${(e: Event) => setPrompt(fieldValue(e))}></textarea>
        </label>
        <div class="row">
          <${ActionButton} label="Start" busyLabel=${`Starting ${kind}…`} disabled=${!ready} run=${start} />
          ${started && html`<a class="button primary" href=${agentHref(feed.api.bridge.key, started.pane_id)}>Open ${started.kind}</a>`}
        </div>
      </div>`
    }
  </main>`
}
