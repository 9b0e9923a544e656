import { useEffect, useState } from 'preact/hooks'
import { html, errText } from '../ui.ts'
import type { FeedClient } from '../feedclient.ts'
import { agentTitle } from '../lib/inbox.ts'
import { ActionButton } from './action.ts'

/** How long "Mute" lasts: an hour, eight hours, or until unmuted (0). */
export const MUTE_FOR: Array<[string, number]> = [
  ['1 h', 3_600_000],
  ['8 h', 8 * 3_600_000],
  ['Until I unmute', 0],
]

export async function mute(feed: FeedClient, pane: string, ms: number): Promise<string> {
  await feed.api.post('/notify/mute', ms ? { pane, until: Date.now() + ms } : { pane })
  return ms ? `Muted until ${new Date(Date.now() + ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}` : 'Muted until you unmute'
}

export const untilText = (until: number) =>
  until === 0 ? 'until you unmute' : `until ${new Date(until).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' })}`

/**
 * Alert settings for this device on one bridge: the ways this bridge can alert it (GET
 * /notify/web), each agent's mute (1 h, 8 h, until unmuted; POST /notify/mute|unmute).
 */
interface TestReport {
  channels: { channel: string; sent: number; total: number; enabled: boolean; note?: string; targets?: { target: string; ok: boolean; answer: string }[] }[]
}

/** "Send test alert": POST /notify/test, then per channel what went out and, per subscription of this device, what its push service answered. */
function TestAlert({ feed }: { feed: FeedClient }) {
  const [report, setReport] = useState<TestReport | null>(null)
  return html`<div class="row" id="alert-test">
      <${ActionButton}
        label="Send test alert"
        busyLabel="Sending…"
        run=${async () => {
          const r = await feed.api.post<TestReport>('/notify/test', {})
          setReport(r)
          const sent = r.channels.reduce((n, c) => n + c.sent, 0)
          const total = r.channels.reduce((n, c) => n + c.total, 0)
          return `Sent to ${sent} of ${total} targets`
        }}
      />
    </div>
    ${
      report?.channels &&
      html`<ul class="test-report small" aria-label="Test alert report">
        ${report.channels.map(
          (c) =>
            html`<li data-channel=${c.channel}>
              <strong>${c.channel}</strong>: ${c.sent > 0 ? `sent to ${c.sent} of ${c.total}` : `not sent${c.note ? ` (${c.note})` : ''}`}
              ${
                c.targets?.length
                  ? html`<ul>
                      ${c.targets.map((t) => html`<li class=${t.ok ? 'ok' : 'error'}>${t.ok ? '✓' : '✗'} ${t.target}: ${t.answer}</li>`)}
                    </ul>`
                  : null
              }
            </li>`,
        )}
      </ul>`
    }`
}

export function AlertsView({ feed, alertsControl }: { feed: FeedClient; alertsControl: unknown }) {
  const api = feed.api
  const [web, setWeb] = useState<{ push_config: boolean; webpush_key: boolean } | null>(null)
  const [mutes, setMutes] = useState<Record<string, number> | null>(null)
  const [error, setError] = useState('')
  const load = () =>
    api.get<{ mutes: Record<string, number> }>('/notify/mutes').then(
      (r) => setMutes(r.mutes ?? {}),
      (err) => setError(errText(err)),
    )
  useEffect(() => {
    void load()
    api.get('/notify/web').then(setWeb, () => setWeb(null))
  }, [api])
  const agents = feed.snapshot.agents ?? []
  const now = Date.now()
  return html`<main class="pane view alerts-view" aria-labelledby="alerts-title">
    <h1 id="alerts-title">Alerts</h1>
    <section aria-labelledby="ch-title">
      <h2 id="ch-title">Channels for this device</h2>
      ${
        web
          ? html`<ul class="channels">
              <li>In this page: <strong>on</strong> while the app is open (blocked and done agents).</li>
              <li>Web Push: ${web.webpush_key ? html`<strong>offered</strong> by this bridge` : html`<span class="muted">not set up on this bridge</span>`}</li>
              <li>Firebase push: ${web.push_config ? html`<strong>offered</strong> by this bridge` : html`<span class="muted">not set up on this bridge</span>`}</li>
            </ul>`
          : html`<p class="muted small">This bridge does not say which channels it has.</p>`
      }
      <div class="row">${alertsControl} <${WebPushOff} feed=${feed} /></div>
      <${TestAlert} feed=${feed} />
    </section>
    <section aria-labelledby="mute-title">
      <h2 id="mute-title">Mute an agent</h2>
      ${error && html`<p class="error" role="alert">${error}</p>`} ${agents.length === 0 && html`<p class="muted small">No agents running.</p>`}
      <ul class="mutes">
        ${agents.map((a) => {
          const until = mutes?.[a.pane_id]
          const muted = until !== undefined && (until === 0 || until > now)
          return html`<li class="mute-row" data-pane=${a.pane_id}>
            <span class="grow">${agentTitle(a)} <span class="muted small">${a.agent}</span></span>
            ${
              muted
                ? html`<span class="small">Muted ${untilText(until!)}</span>
                    <${ActionButton}
                      label="Unmute"
                      small
                      run=${async () => {
                        await api.post('/notify/unmute', { pane: a.pane_id })
                        await load()
                        return `Alerts for ${agentTitle(a)} are on again`
                      }}
                    />`
                : MUTE_FOR.map(
                    ([label, ms]) =>
                      html`<${ActionButton}
                        label=${label === 'Until I unmute' ? 'Mute' : `Mute ${label}`}
                        small
                        run=${async () => {
                          const r = await mute(feed, a.pane_id, ms)
                          await load()
                          return `${agentTitle(a)}: ${r}`
                        }}
                      />`,
                  )
            }
          </li>`
        })}
      </ul>
    </section>
    <${QuietHours} feed=${feed} />
  </main>`
}

/**
 * Stops Web Push to this browser from this bridge (POST /webpush/unsubscribe with this browser's
 * subscription); other devices and channels are untouched. Shown only while subscribed.
 */
function WebPushOff({ feed }: { feed: FeedClient }) {
  const [endpoint, setEndpoint] = useState<string | null>(null)
  useEffect(() => {
    void navigator.serviceWorker
      ?.getRegistration()
      .then((reg) => reg?.pushManager?.getSubscription())
      .then((sub) => setEndpoint(sub?.endpoint ?? null))
      .catch(() => setEndpoint(null))
  }, [])
  if (!endpoint) return null
  return html`<${ActionButton}
    label="Stop Web Push here"
    small
    confirm="Stop this bridge's Web Push alerts to this browser? Other devices keep theirs."
    run=${async () => {
      const r = await feed.api.post<{ removed: boolean }>('/webpush/unsubscribe', { endpoint })
      return r.removed ? 'This browser gets no Web Push from this bridge now' : 'This browser was not subscribed here'
    }}
  />`
}

/**
 * Quiet hours for this device (GET/POST /notify/quiet): no alerts from any agent in that daily
 * window, read in this device's own time zone (its offset is sent along).
 */
function QuietHours({ feed }: { feed: FeedClient }) {
  const api = feed.api
  const [q, setQ] = useState<{ from: string; to: string } | null | undefined>(undefined)
  const [from, setFrom] = useState('22:00')
  const [to, setTo] = useState('07:00')
  useEffect(() => {
    api.get<{ quiet: { from: string; to: string } | null }>('/notify/quiet').then(
      (r) => {
        setQ(r.quiet)
        if (r.quiet) {
          setFrom(r.quiet.from)
          setTo(r.quiet.to)
        }
      },
      () => setQ(undefined),
    )
  }, [api])
  return html`<section aria-labelledby="quiet-title" class="quiet">
    <h2 id="quiet-title">Quiet hours</h2>
    ${
      q === undefined
        ? html`<p class="muted small">This bridge does not offer quiet hours.</p>`
        : html`<p class="small" data-quiet=${q ? `${q.from}-${q.to}` : 'off'}>${q ? `No alerts on this device from ${q.from} to ${q.to}.` : 'Off: alerts arrive at any hour.'}</p>
            <div class="row form">
              <label class="inline">From <input type="time" aria-label="Quiet from" value=${from} onInput=${(e: any) => setFrom(e.currentTarget.value)} /></label>
              <label class="inline">To <input type="time" aria-label="Quiet to" value=${to} onInput=${(e: any) => setTo(e.currentTarget.value)} /></label>
              <${ActionButton}
                label="Save"
                small
                run=${async () => {
                  const r = await api.post<{ quiet: { from: string; to: string } }>('/notify/quiet', { from, to, utc_offset: -new Date().getTimezoneOffset() })
                  setQ(r.quiet)
                  return `Quiet from ${r.quiet.from} to ${r.quiet.to}`
                }}
              />
              ${
                q &&
                html`<${ActionButton}
                  label="Turn off"
                  small
                  run=${async () => {
                    await api.post('/notify/quiet', {})
                    setQ(null)
                    return 'Quiet hours off'
                  }}
                />`
              }
            </div>`
    }
  </section>`
}
