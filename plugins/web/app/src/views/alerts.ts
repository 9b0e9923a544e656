import { useEffect, useState } from 'preact/hooks'
import { html, errText, toast } from '../ui.ts'
import { ApiError } from '../lib/api.ts'
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
 * /notify/web), which of its channels this device gets (GET/POST /notify/channels), each
 * agent's mute (1 h, 8 h, until unmuted; POST /notify/mute|unmute), quiet hours.
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
        small
        busyLabel="Sending…"
        run=${async () => {
          const r = await feed.api.post('/notify/test', {})
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

/** One running channel as this device sees it (GET/POST /notify/channels). */
interface ChannelChoice {
  channel: string
  per_device: boolean
  configured: boolean
  on: boolean
}

/** How a channel is named on screen; one the app does not know (a third party's) by its own name. */
const CHANNEL_LABELS: Record<string, string> = {
  webpush: 'Web Push (browsers of this device)',
  fcm: 'FCM push (the phone app)',
  ntfy: 'ntfy topic',
  webhook: 'Webhooks',
}
const channelLabel = (c: string) => CHANNEL_LABELS[c] ?? c
/** A per-device channel's state on this device: on or off, or not set up on the bridge at all. */
const channelState = (c: ChannelChoice) =>
  c.configured ? html`<strong>${c.on ? 'on' : 'off'}</strong>` : html`<span class="muted">not set up on this bridge${c.on ? '' : ' (off here)'}</span>`

/**
 * Which channels this device's alerts go out on: a switch for each per-device channel (Web Push,
 * FCM), which the bridge honours at delivery; the bridge-wide ones (ntfy, webhooks, a third
 * party's) listed as they are, since the bridge's config sets them for every device.
 * Undefined result: the bridge predates GET /notify/channels.
 */
function ChannelChoices({ feed, onMissing }: { feed: FeedClient; onMissing: () => void }) {
  const api = feed.api
  const [list, setList] = useState<ChannelChoice[] | null | undefined>(null)
  const [busy, setBusy] = useState('')
  const [error, setError] = useState('')
  useEffect(() => {
    api.get('/notify/channels').then(
      (r) => setList(r.channels),
      (err) => {
        if (!(err instanceof ApiError && err.status === 404)) return setError(errText(err))
        setList(undefined)
        onMissing()
      },
    )
  }, [api])
  if (list === undefined) return null
  const set = async (c: ChannelChoice, on: boolean) => {
    setBusy(c.channel)
    setError('')
    try {
      const r = await api.post('/notify/channels', { channel: c.channel, on })
      setList(r.channels)
      toast(`${channelLabel(c.channel)}: ${on ? 'on' : 'off'} for this device`)
    } catch (err) {
      setError(errText(err))
    } finally {
      setBusy('')
    }
  }
  const mine = list?.filter((c) => c.per_device) ?? []
  const wide = list?.filter((c) => !c.per_device) ?? []
  return html`<div class="channel-choices">
    ${error && html`<p class="error" role="alert">${error}</p>`} ${list === null && !error && html`<p class="muted small">Reading this bridge's channels…</p>`}
    ${
      list &&
      html`<ul class="channels" aria-label="Channels this device chooses">
          ${mine.map(
            (c) =>
              html`<li data-channel=${c.channel} data-on=${String(c.on)}>
                <label class="radio">
                  <input
                    type="checkbox"
                    role="switch"
                    aria-label=${`${channelLabel(c.channel)} alerts on this device`}
                    checked=${c.on}
                    disabled=${busy === c.channel}
                    onChange=${(e: Event) => void set(c, (e.currentTarget as HTMLInputElement).checked)}
                  />
                  <span class="grow">${channelLabel(c.channel)}: ${channelState(c)}</span>
                </label>
              </li>`,
          )}
          ${mine.length === 0 && html`<li class="muted small">This bridge runs no channel a device chooses for itself.</li>`}
        </ul>
        ${
          wide.length > 0 &&
          html`<p class="small">For every device, set in the bridge's config:</p>
            <ul class="channels" aria-label="Channels of the whole bridge">
              ${wide.map(
                (c) =>
                  html`<li data-channel=${c.channel} data-on=${String(c.on)} class="small">
                    ${channelLabel(c.channel)}: ${c.configured ? html`<strong>on</strong>` : html`<span class="muted">not set up</span>`}
                  </li>`,
              )}
            </ul>`
        }`
    }
  </div>`
}

export function AlertsView({ feed, alertsControl }: { feed: FeedClient; alertsControl: unknown }) {
  const api = feed.api
  const [web, setWeb] = useState<{ push_config: boolean; webpush_key: boolean } | null>(null)
  const [mutes, setMutes] = useState<Record<string, number> | null>(null)
  /** The bridge lists its channels per device (GET /notify/channels); an older one only says what a browser can enable. */
  const [choices, setChoices] = useState(true)
  const [error, setError] = useState('')
  const load = () =>
    api.get('/notify/mutes').then(
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
      <p>In this page: <strong>on</strong> while the app is open (blocked and done agents).</p>
      ${
        choices
          ? html`<${ChannelChoices} feed=${feed} onMissing=${() => setChoices(false)} />`
          : web
            ? html`<ul class="channels">
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
      const r = await feed.api.post('/webpush/unsubscribe', { endpoint })
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
    api.get('/notify/quiet').then(
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
              <label class="inline"
                >From <input type="time" aria-label="Quiet from" value=${from} onInput=${(e: Event) => setFrom((e.currentTarget as HTMLInputElement).value)}
              /></label>
              <label class="inline">To <input type="time" aria-label="Quiet to" value=${to} onInput=${(e: Event) => setTo((e.currentTarget as HTMLInputElement).value)} /></label>
              <${ActionButton}
                label="Save"
                small
                run=${async () => {
                  const r = await api.post('/notify/quiet', { from, to, utc_offset: -new Date().getTimezoneOffset() })
                  setQ(r.quiet)
                  return `Quiet from ${r.quiet?.from} to ${r.quiet?.to}`
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
