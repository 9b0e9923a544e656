import { useEffect, useState } from 'preact/hooks'
import { html, badge, errText } from '../ui.ts'
import type { Api, GetResponses } from '../lib/api.ts'
import { jsonObject } from '../lib/json.ts'
import { relativeTime } from '../lib/inbox.ts'
import { plainText } from '../lib/triage.ts'
import { agentHref } from '../route.ts'

interface Entry {
  ts: number
  pane: string
  agent: string
  workspace: string
  title?: string
  from?: string
  to: string
  prev_ms?: number
}

const dur = (ms?: number) =>
  ms === undefined ? '' : ms < 60_000 ? `${Math.round(ms / 1000)} s` : ms < 3_600_000 ? `${Math.round(ms / 60_000)} min` : `${(ms / 3_600_000).toFixed(1)} h`

/** Status history, newest first (GET /timeline): for every agent, or one pane's. */
export function Timeline({ api, pane, bridgeKey }: { api: Api; pane?: string; bridgeKey: string }) {
  const [entries, setEntries] = useState<Entry[] | null>(null)
  const [error, setError] = useState('')
  const now = Date.now()
  useEffect(() => {
    api.get(`/timeline?limit=100${pane ? `&pane=${encodeURIComponent(pane)}` : ''}`).then(
      (r) => setEntries(r.entries),
      (err) => setError(errText(err)),
    )
  }, [api, pane])
  if (error) return html`<p class="error" role="alert">${error}</p>`
  if (!entries) return html`<p class="muted">Loading the timeline…</p>`
  if (!entries.length) return html`<p class="muted">No status changes recorded yet.</p>`
  return html`<ol class="timeline" aria-label="Timeline">
    ${entries.map(
      (e) =>
        html`<li class="tl-row" data-pane=${e.pane} data-to=${e.to}>
          <time datetime=${new Date(e.ts).toISOString()} title=${new Date(e.ts).toLocaleString()}>${relativeTime(e.ts, now) || '—'}</time>
          ${!pane ? html`<a href=${agentHref(bridgeKey, e.pane)}>${plainText(e.title ?? '') || e.agent || e.pane}</a>` : ''}
          <span class="tl-change">${e.from ? html`${badge(e.from)} → ` : ''}${badge(e.to)}</span>
          ${e.prev_ms !== undefined && html`<span class="muted small">after ${dur(e.prev_ms)}</span>`}
        </li>`,
    )}
  </ol>`
}

interface PortRow {
  port: number
  bind: string
  proc: string
  loopback: boolean
  pane?: string
  url?: string
}

/** Where a listener answers, in words: every interface (`*`, `0.0.0.0`, `::`), or one address. */
const bindText = (p: PortRow) => (['*', '0.0.0.0', '::', '[::]'].includes(p.bind) ? 'every interface' : p.loopback ? `${p.bind} (this host only)` : p.bind)

/** Dev servers an agent started (GET /ports?pane=), with the link the bridge relays them on. */
export function Ports({ api, pane }: { api: Api; pane?: string }) {
  const [ports, setPorts] = useState<PortRow[] | null>(null)
  const [error, setError] = useState('')
  useEffect(() => {
    api.get(`/ports${pane ? `?pane=${encodeURIComponent(pane)}` : ''}`).then(
      (r) => setPorts(r.ports),
      (err) => setError(errText(err)),
    )
  }, [api, pane])
  if (error) return html`<p class="muted small">Ports: ${error}</p>`
  if (!ports) return null
  if (!ports.length) return html`<p class="muted small">No dev server listening${pane ? ' from this pane' : ''}.</p>`
  return html`<ul class="ports" aria-label="Dev servers">
    ${ports.map(
      (p) =>
        html`<li>
          ${p.url ? html`<a href=${p.url} target="_blank" rel="noopener">:${p.port}</a>` : html`<span>:${p.port}</span>`}
          <span class="muted small">${p.proc} on ${bindText(p)}</span>
        </li>`,
    )}
  </ul>`
}

/** An agent's own activity: its timeline and the dev servers it runs. */
export function ActivityTab({ api, pane, bridgeKey }: { api: Api; pane: string; bridgeKey: string }) {
  return html`<section class="activity" aria-label="Activity">
    <h3>Dev servers</h3>
    <${Ports} api=${api} pane=${pane} />
    <h3>Timeline</h3>
    <${Timeline} api=${api} pane=${pane} bridgeKey=${bridgeKey} />
  </section>`
}

export function TimelineView({ api, bridgeKey }: { api: Api; bridgeKey: string }) {
  return html`<main class="pane view" aria-labelledby="tl-title">
    <h1 id="tl-title">Timeline</h1>
    <${Timeline} api=${api} bridgeKey=${bridgeKey} />
    <h3>Dev servers</h3>
    <${Ports} api=${api} />
  </main>`
}

/** One agent kind's entry in GET /usage: whether its quota is readable, and its windows (the object fields with a `utilization`). */
type KindUsage = { available?: unknown; reason?: string; subscription_type?: string; [field: string]: unknown }
type UsageWindow = { utilization: number; resets_at?: string | number }

const usageWindows = (u: KindUsage): Array<[string, UsageWindow]> => Object.entries(u).filter((e): e is [string, UsageWindow] => typeof jsonObject(e[1])?.utilization === 'number')

/** Quota per agent kind (GET /usage): each window's use and when it resets. */
export function UsageView({ api }: { api: Api }) {
  const [usage, setUsage] = useState<GetResponses['/usage'] | null>(null)
  const [error, setError] = useState('')
  useEffect(() => {
    api.get('/usage').then(setUsage, (err) => setError(errText(err)))
  }, [api])
  const kinds = usage ? Object.entries(usage).flatMap(([k, u]): Array<[string, KindUsage]> => (k === 'fetched_at' ? [] : [[k, jsonObject(u) ?? {}]])) : []
  return html`<main class="pane view" aria-labelledby="usage-title">
    <h1 id="usage-title">Usage</h1>
    ${error && html`<p class="error" role="alert">${error}</p>`} ${!usage && !error && html`<p class="muted">Reading quotas…</p>`}
    ${usage && !kinds.length && html`<p class="muted">No agent kind on this bridge reports a quota.</p>`}
    ${kinds.map(
      ([kind, u]) =>
        html`<section class="usage" data-kind=${kind} aria-label=${`${kind} usage`}>
          <h2>${kind} ${u.subscription_type && html`<span class="muted small">${u.subscription_type}</span>`}</h2>
          ${!u.available && html`<p class="muted small">${u.reason || 'not available'}</p>`}
          ${
            u.available &&
            usageWindows(u).map(
              ([name, w]) =>
                html`<div class="meter-row">
                  <span class="meter-name">${name.replace(/_/g, ' ')}</span>
                  <meter min="0" max="100" value=${w.utilization} aria-label=${`${name} used`}></meter>
                  <span>${Math.round(w.utilization)}%</span>
                  ${w.resets_at && html`<span class="muted small">resets ${new Date(w.resets_at).toLocaleString()}</span>`}
                </div>`,
            )
          }
        </section>`,
    )}
    ${usage && html`<p class="muted small">Read ${new Date(usage.fetched_at).toLocaleTimeString()}.</p>`}
  </main>`
}
