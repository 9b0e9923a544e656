import { useState } from 'preact/hooks'
import { html, badge, errText } from '../ui.ts'
import type { FeedClient } from '../feedclient.ts'
import type { PostResponses } from '../lib/api.ts'
import type { Pane, Workspace } from '../lib/inbox.ts'
import { agentTitle } from '../lib/inbox.ts'
import { agentHref, viewHref } from '../route.ts'
import { ActionButton, ClosePaneButton } from './action.ts'
import { useWatchOnly } from '../lib/device.ts'

interface BranchInfo {
  workspace_id: string
  repo_root: string
  branch: string
  default_branch: string
  is_default: boolean
  merged: boolean
  merged_into: string
  unmerged_commits: number
  deletable: boolean
  blocked_reason: string
}

/** The fields of herdr's answers (workspace.create, tab.create, worktree.create) this view shows. */
type HerdrMade = { result?: { workspace?: { label?: string; workspace_id?: string }; tab?: { tab_id?: string }; worktree?: { branch?: string; path?: string } } }

const herdr = (feed: FeedClient, method: string, params: Record<string, unknown>) =>
  feed.api.request<HerdrMade>('/herdr', { method: 'POST', json: { method, params }, timeoutMs: 150_000 })

/** After a change: the snapshot is read now, so the list shows it at once. */
const done = (feed: FeedClient, text: string) => (void feed.refetch(), text)

/**
 * Spaces, their tabs and panes, as herdr has them: new and close tab, pane and space; worktrees
 * (new, remove) and their branch (info, then delete: merged plainly, unmerged only after a second
 * confirmation that says what is lost). Plain shells are listed with their terminal.
 */
export function SpacesView({ feed }: { feed: FeedClient }) {
  const snap = feed.snapshot
  const spaces = snap.workspaces ?? []
  const key = feed.api.bridge.key
  // A viewer device watches: the spaces are listed without their actions.
  const ro = useWatchOnly(feed.api)
  return html`<main class="pane view spaces-view" aria-labelledby="spaces-title">
    <div class="view-head">
      <h1 id="spaces-title">Spaces</h1>
      ${
        !ro &&
        html`<${ActionButton}
          label="New space"
          small
          run=${async () => {
            const r = await herdr(feed, 'workspace.create', {})
            return done(feed, `Opened space ${r.result?.workspace?.label || r.result?.workspace?.workspace_id || ''}`.trim())
          }}
        />`
      }
    </div>
    ${ro && html`<p class="muted small watch-only">Watch-only device: it sees the spaces but cannot change them.</p>`}
    ${spaces.length === 0 && html`<p class="muted">No spaces: herdr has nothing open.</p>`}
    ${spaces.map((w) => html`<${SpaceCard} key=${w.workspace_id} feed=${feed} space=${w} bridgeKey=${key} ro=${ro} />`)}
  </main>`
}

function SpaceCard({ feed, space, bridgeKey, ro }: { feed: FeedClient; space: Workspace; bridgeKey: string; ro: boolean }) {
  const snap = feed.snapshot
  const tabs = (snap.tabs ?? []).filter((t) => t.workspace_id === space.workspace_id)
  const panes = (snap.panes ?? []).filter((p) => p.workspace_id === space.workspace_id)
  const wt = space.worktree
  const name = space.label || space.workspace_id
  return html`<section class="space" aria-label=${`Space ${name}`} data-space=${space.workspace_id}>
    <header class="space-head">
      <h2>${name}</h2>
      ${wt?.is_linked_worktree && html`<span class="tag" title=${wt.checkout_path}>worktree</span>`} ${wt?.repo_name && html`<span class="muted small">${wt.repo_name}</span>`}
    </header>
    ${
      !ro &&
      html`<div class="row actions">
        <a class="button small" href=${viewHref('start', bridgeKey, { ws: space.workspace_id })}>New agent</a>
        <${ActionButton}
          label="New tab"
          small
          run=${async () => {
            const r = await herdr(feed, 'tab.create', { workspace_id: space.workspace_id })
            return done(feed, `Opened tab ${r.result?.tab?.tab_id ?? ''} in ${name}`)
          }}
        />
        ${
          wt?.repo_root &&
          html`<${ActionButton}
            label="New worktree"
            small
            run=${async () => {
              const r = await herdr(feed, 'worktree.create', { workspace_id: space.workspace_id })
              return done(feed, `Made worktree ${r.result?.worktree?.branch ?? r.result?.worktree?.path ?? ''} (space ${r.result?.workspace?.workspace_id ?? ''})`)
            }}
          />`
        }
        <${ActionButton}
          label="Close space"
          small
          danger
          confirm=${`Close ${name} and everything running in it (${panes.length} pane${panes.length === 1 ? '' : 's'})?`}
          run=${async () => {
            for (const t of tabs) await herdr(feed, 'tab.close', { tab_id: t.tab_id })
            return done(feed, `Closed ${name}`)
          }}
        />
      </div>`
    }
    ${wt?.repo_root && !ro && html`<${BranchBox} feed=${feed} space=${space} />`}
    ${tabs.map(
      (t) =>
        html`<div class="tabbox" data-tab=${t.tab_id}>
          <div class="row tab-head">
            <strong>Tab ${t.label || t.number || t.tab_id}</strong>
            ${
              !ro &&
              html`<${ActionButton}
                  label="New pane"
                  small
                  run=${async () => {
                    const first = panes.find((p) => p.tab_id === t.tab_id)
                    const r = await feed.api.post('/pane/new', first ? { split_from: first.pane_id, direction: 'down' } : { workspace_id: space.workspace_id })
                    return done(feed, `Opened pane ${r.pane_id}`)
                  }}
                />
                <${ActionButton}
                  label="Close tab"
                  small
                  danger
                  confirm=${`Close this tab and its ${panes.filter((p) => p.tab_id === t.tab_id).length} pane(s)?`}
                  run=${async () => {
                    await herdr(feed, 'tab.close', { tab_id: t.tab_id })
                    return done(feed, `Closed tab ${t.tab_id}`)
                  }}
                />`
            }
          </div>
          <ul class="panes">
            ${panes.filter((p) => p.tab_id === t.tab_id).map((p) => html`<${PaneRow} key=${p.pane_id} feed=${feed} pane=${p} bridgeKey=${bridgeKey} ro=${ro} />`)}
          </ul>
        </div>`,
    )}
  </section>`
}

function PaneRow({ feed, pane, bridgeKey, ro }: { feed: FeedClient; pane: Pane; bridgeKey: string; ro: boolean }) {
  const agent = feed.snapshot.agents?.find((a) => a.pane_id === pane.pane_id)
  return html`<li class="pane-row" data-pane=${pane.pane_id}>
    ${
      agent
        ? html`<a href=${agentHref(bridgeKey, pane.pane_id)}>${agentTitle(agent)}</a> ${badge(agent.agent_status)}`
        : html`<a href=${agentHref(bridgeKey, pane.pane_id, 'terminal')}>Shell ${pane.pane_id}</a> <span class="muted small">${pane.cwd ?? ''}</span>`
    }
    <span class="grow"></span>
    ${!agent && !ro && html`<a class="button small ghost" href=${viewHref('start', bridgeKey, { where: 'pane', pane: pane.pane_id })}>Start agent</a>`}
    ${!ro && html`<${ClosePaneButton} feed=${feed} pane=${pane.pane_id} agentKind=${agent?.agent} label="Close" />`}
  </li>`
}

/** A worktree's branch: what deleting it would do, then the delete (worktree removed first). */
function BranchBox({ feed, space }: { feed: FeedClient; space: Workspace }) {
  const [info, setInfo] = useState<BranchInfo | null>(null)
  const [error, setError] = useState('')
  const [sure, setSure] = useState(false)
  async function load() {
    try {
      setInfo(await feed.api.get(`/branch-info?workspace_id=${encodeURIComponent(space.workspace_id)}`))
      setError('')
    } catch (err) {
      setError(errText(err))
    }
  }
  const linked = !!space.worktree?.is_linked_worktree
  async function remove(): Promise<string> {
    const i = info!
    // The branch is checked out in this worktree: git refuses to delete it until the worktree goes.
    if (linked) await herdr(feed, 'worktree.remove', { workspace_id: space.workspace_id, force: !i.merged })
    const r = await feed.api.request<PostResponses['/branch-delete']>('/branch-delete', { method: 'POST', json: { repo_root: i.repo_root, branch: i.branch, force: !i.merged } })
    return done(
      feed,
      `Deleted branch ${r.branch}${r.forced ? ` (${i.unmerged_commits} unmerged commit${i.unmerged_commits === 1 ? '' : 's'} dropped)` : ` (merged into ${r.merged_into})`}`,
    )
  }
  return html`<div class="branch-box" role="group" aria-label="Branch">
    ${!info && html`<button class="small" onClick=${load}>Branch…</button>`} ${error && html`<p class="error" role="alert">${error}</p>`}
    ${
      info &&
      html`<p class="branch-line row">
          <span class="branch">⎇ ${info.branch}</span>
          ${
            info.is_default
              ? html`<span class="muted small">the default branch</span>`
              : info.merged
                ? html`<span class="ok small">merged into ${info.merged_into}</span>`
                : html`<span class="warn small">${info.unmerged_commits} commit${info.unmerged_commits === 1 ? '' : 's'} not merged into ${info.default_branch}</span>`
          }
        </p>
        ${!info.deletable && html`<p class="muted small">${info.blocked_reason}</p>`}
        ${
          info.deletable &&
          (info.merged
            ? html`<${ActionButton}
                label=${linked ? 'Remove worktree and delete branch' : 'Delete branch'}
                small
                danger
                confirm=${`Delete ${info.branch}? It is merged into ${info.merged_into}; nothing is lost.${linked ? ' The worktree folder goes too.' : ''}`}
                run=${remove}
              />`
            : sure
              ? html`<${ActionButton}
                  label="Delete unmerged branch"
                  small
                  danger
                  confirm=${`Last check: ${info.unmerged_commits} commit${info.unmerged_commits === 1 ? '' : 's'} on ${info.branch} exist nowhere else and will be lost${linked ? ', with the worktree folder and any uncommitted change in it' : ''}. Delete?`}
                  confirmLabel="Delete and lose them"
                  run=${remove}
                />`
              : html`<div class="row">
                  <button class="small danger" onClick=${() => setSure(true)}>Delete branch…</button>
                  <span class="warn small">Not merged: deleting it loses ${info.unmerged_commits} commit${info.unmerged_commits === 1 ? '' : 's'}.</span>
                </div>`)
        }`
    }
  </div>`
}
