import { useEffect, useState } from 'preact/hooks'
import { html, errText } from '../ui.ts'
import type { Api } from '../lib/api.ts'

interface Listing {
  path: string
  parent: string
  is_repo: boolean
  roots: Array<{ path: string; label: string; kind: string }>
  entries: Array<{ name: string; path: string; is_repo: boolean; open_workspace_id: string }>
  truncated: boolean
}

/** Browses the host's folders (GET /browse, confined to the bridge's roots) and picks one. */
export function FolderPicker({ api, value, onPick }: { api: Api; value: string; onPick: (path: string) => void }) {
  const [at, setAt] = useState('')
  const [list, setList] = useState<Listing | null>(null)
  const [error, setError] = useState('')
  useEffect(() => {
    let live = true
    api.get(`/browse${at ? `?path=${encodeURIComponent(at)}` : ''}`).then(
      (r) => {
        if (!live) return
        setList(r)
        setError('')
        onPick(r.path)
      },
      (err) => live && setError(errText(err)),
    )
    return () => void (live = false)
  }, [api, at])
  return html`<div class="browse" role="group" aria-label="Folder on the host">
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${
      list &&
      html`<p class="browse-path"><span class="muted small">Folder:</span> <code>${value || list.path}</code>${list.is_repo && html` <span class="tag">git</span>`}</p>
        <div class="row">
          ${list.roots.map((r) => html`<button type="button" class="ghost small" onClick=${() => setAt(r.path)}>${r.label}</button>`)}
          ${list.parent && html`<button type="button" class="ghost small" onClick=${() => setAt(list.parent)} aria-label="Up one folder">↑ Up</button>`}
        </div>
        <ul class="folders">
          ${list.entries.map(
            (e) =>
              html`<li>
                <button type="button" class="folder" onClick=${() => setAt(e.path)}>📁 ${e.name}${e.is_repo && html` <span class="tag">git</span>`}</button>
              </li>`,
          )}
          ${list.entries.length === 0 && html`<li class="muted small">No folders here.</li>`}
        </ul>
        ${list.truncated && html`<p class="muted small">Only the first folders are listed.</p>`}`
    }
  </div>`
}
