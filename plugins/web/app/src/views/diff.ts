import { useEffect, useState } from 'preact/hooks'
import { html, errText, toast } from '../ui.ts'
import type { Api, GetResponses } from '../lib/api.ts'
import { canExpand, gapAbove, parseDiff, type Hunk } from '../lib/diff.ts'

/** A unified diff drawn line by line (no expansion): used in the transcript. */
export function DiffBlock({ diff }: { diff: string }) {
  const { hunks, meta } = parseDiff(diff)
  if (!hunks.length) return html`<pre class="diff">${meta.join('\n') || diff}</pre>`
  return html`<div class="diff" role="table" aria-label="Changes">${hunks.map((h) => html`<${HunkView} h=${h} />`)}</div>`
}

function HunkView({ h, extra }: { h: Hunk; extra?: string[] }) {
  return html`<div class="hunk">
    ${extra?.map((t) => html`<div class="ln ctx expanded"><span class="no"></span><span class="sign"> </span><span class="code">${t}</span></div>`)}
    <div class="ln hunk-head"><span class="code">${h.header}</span></div>
    ${h.lines.map(
      (l) =>
        html`<div class=${`ln ${l.kind}`}>
          <span class="no">${l.newNo ?? l.oldNo ?? ''}</span
          ><span class="sign" aria-label=${l.kind === 'add' ? 'added' : l.kind === 'del' ? 'removed' : undefined}>${l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' '}</span
          ><span class="code">${l.text}</span>
        </div>`,
    )}
  </div>`
}

type DiffFile = GetResponses['/diff']['files'][number]

/** GET /diff: the pane's pending changes, one collapsible file each, with expand above hunks. */
export function DiffView({ api, pane }: { api: Api; pane: string }) {
  const [data, setData] = useState<GetResponses['/diff'] | null>(null)
  const [error, setError] = useState('')
  const load = async () => {
    try {
      setData(await api.get(`/diff?pane=${encodeURIComponent(pane)}`))
      setError('')
    } catch (err) {
      setError(errText(err))
    }
  }
  useEffect(() => void load(), [api, pane])
  const g = data?.git
  return html` <section class="diff-view" aria-label="Changes">
    <div class="row">
      ${g && g.repo && html`<span>⎇ <strong>${g.branch || '(detached)'}</strong>${g.default_branch ? html` · ${g.ahead} ahead, ${g.behind} behind ${g.default_branch}` : ''}${g.operation ? html` · <span class="badge badge-blocked">${g.operation} in progress</span>` : ''}</span>`}
      <button class="small" onClick=${load}>Refresh</button>
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`} ${data && g && !g.repo && html`<p class="muted">This agent's folder is not a git repository.</p>`}
    ${data && data.files?.length === 0 && (!g || g.repo) && html`<p class="muted">No changes.</p>`}
    ${data?.files?.map((f) => html`<${FileDiff} key=${f.path} api=${api} pane=${pane} f=${f} />`)}
  </section>`
}

function FileDiff({ api, pane, f }: { api: Api; pane: string; f: DiffFile }) {
  const parsed = parseDiff(f.diff ?? '')
  const [extra, setExtra] = useState<Record<number, string[]>>({})
  const expandable = canExpand(f.status)

  async function expand(i: number) {
    const gap = gapAbove(parsed.hunks, i)
    if (!gap) return
    const shown = extra[i]?.length ?? 0
    const end = gap[1] - shown
    const start = Math.max(gap[0], end - 19)
    try {
      const r = await api.get(`/diff/expand?pane=${encodeURIComponent(pane)}&path=${encodeURIComponent(f.path)}&start=${start}&count=${end - start + 1}`)
      setExtra({ ...extra, [i]: [...(r.lines ?? []).map(String), ...(extra[i] ?? [])] })
    } catch (err) {
      toast(errText(err), 'error')
    }
  }

  return html`<details class="file" open=${parsed.hunks.length > 0 && parsed.hunks.length < 12}>
    <summary>
      <span class=${`fstatus fs-${f.status}`}>${f.status}</span>
      <span class="fpath">${f.old_path ? `${f.old_path} → ` : ''}${f.path}</span>
      <span class="counts"><span class="add">+${f.additions}</span> <span class="del">−${f.deletions}</span></span>
    </summary>
    ${parsed.hunks.length === 0 && html`<pre class="diff">${f.diff}</pre>`}
    <div class="diff">
      ${parsed.hunks.map((h, i) => {
        const gap = expandable ? gapAbove(parsed.hunks, i) : null
        const more = gap && gap[1] - gap[0] + 1 > (extra[i]?.length ?? 0)
        return html`${more && html`<button class="expand small ghost" onClick=${() => expand(i)} aria-label=${`Show lines above ${h.header}`}>⋯ show more lines above</button>`}<${HunkView}
            h=${h}
            extra=${extra[i]}
          />`
      })}
    </div>
  </details>`
}
