import { useEffect, useMemo, useReducer, useState } from 'preact/hooks'
import { html, toast, currentToasts, onToasts, errText } from './ui.ts'
import { shownToast } from './lib/toasts.ts'
import { Api } from './lib/api.ts'
import { loadBridges, saveBridges, upsertBridge, type SavedBridge } from './lib/bridges.ts'
import { agentTitle, isPlainPane } from './lib/inbox.ts'
import { jsonObject, type JsonObject } from './lib/json.ts'
import { FeedClient } from './feedclient.ts'
import { agentHref, parseRoute, viewHref, type Route } from './route.ts'
import { needsYouCount, sinceText } from './lib/triage.ts'
import { StartView } from './views/start.ts'
import { SpacesView } from './views/spaces.ts'
import { TimelineView, UsageView } from './views/activity.ts'
import { DevicesView } from './views/devices.ts'
import { AlertsView } from './views/alerts.ts'
import { NextView } from './views/next.ts'
import { PairView } from './views/pair.ts'
import { InboxView } from './views/inbox.ts'
import { AgentView } from './views/agent.ts'
import { enablePush, enableWebPush, homeBridge, pushConfig, pushOn, pushSupported, syncPush, syncWebPush, webPushKey, type SyncResult } from './push.ts'
import type { PushConfig } from './lib/push-state.ts'
import { alertRoute } from './lib/alerts.ts'

const feeds = new Map<string, FeedClient>()

/** Opens a feed per paired bridge and closes those no longer paired. */
function syncFeeds(bridges: SavedBridge[], onAny: () => void): void {
  for (const [key, feed] of feeds) {
    if (!bridges.some((b) => b.key === key && b.bearer === feed.api.bridge.bearer)) {
      feed.close()
      feeds.delete(key)
    }
  }
  for (const b of bridges) {
    if (feeds.has(b.key)) continue
    const feed = new FeedClient(new Api(b))
    feed.onChange(onAny)
    feed.onDelta((f) => alertFor(b, feed, f))
    feeds.set(b.key, feed)
  }
}

/** In-page alert (and a system notification when the page is hidden and allowed) on blocked/done. */
function alertFor(b: SavedBridge, feed: FeedClient, f: JsonObject): void {
  if (f.source !== 'multiplexer' || f.type !== 'pane_agent_status_changed') return
  const payload = jsonObject(f.payload)
  const st = payload?.agent_status
  if (st !== 'blocked' && st !== 'done') return
  const pane = String(payload?.pane_id)
  const a = feed.snapshot.agents?.find((x) => x.pane_id === pane)
  const title = `${a ? agentTitle(a) : pane} is ${st}`
  toast(title, 'alert')
  if (document.visibilityState === 'hidden' && 'Notification' in window && Notification.permission === 'granted') {
    void navigator.serviceWorker
      ?.getRegistration()
      .then((reg) => reg?.showNotification(title, { body: b.name, tag: `${b.server_id || b.key}/${pane}`, data: { url: agentHref(b.key, pane) } }))
  }
}

export function App() {
  const [bridges, setBridges] = useState(loadBridges)
  const [hash, setHash] = useState(location.hash)
  const route = useMemo(() => parseRoute(hash), [hash])
  const [, bump] = useReducer((n: number) => n + 1, 0)
  const tick = () => bump(undefined)

  useEffect(() => {
    const on = () => setHash(location.hash)
    addEventListener('hashchange', on)
    // The listener comes after the first paint: a link followed before then (a page opened and
    // at once sent elsewhere) fired no event for it, and the app stayed on the first view.
    on()
    return () => removeEventListener('hashchange', on)
  }, [])
  useEffect(() => syncFeeds(bridges, tick), [bridges])
  useEffect(() => onToasts(tick), [])

  // What the home bridge offers (GET /notify/web) decides what else is read: nothing in vain.
  const home = homeBridge(bridges)
  // Web push: offered only when this page's bridge serves a config; once on, the token is
  // refreshed at each start, for each newly paired bridge and when the worker reports a change.
  const [push, setPush] = useState<PushConfig | null>(null)
  useEffect(() => void (pushSupported() && home ? pushConfig(home).then(setPush) : setPush(null)), [home?.url, home?.bearer])
  useEffect(() => {
    if (!push || !bridges.length || !pushOn()) return
    const sync = () => void syncPush(push, bridges).then(reportPush, (err) => toast(`Push: ${errText(err)}`, 'error'))
    sync()
    const onMessage = (ev: MessageEvent) => ev.data?.type === 'push-subscription-change' && sync()
    navigator.serviceWorker.addEventListener('message', onMessage)
    return () => navigator.serviceWorker.removeEventListener('message', onMessage)
  }, [push, bridges])
  // Standard Web Push when the bridge offers a key and no Firebase config was set up.
  const [vapid, setVapid] = useState<string | null>(null)
  useEffect(() => void (pushSupported() && home ? webPushKey(home).then(setVapid) : setVapid(null)), [home?.url, home?.bearer])
  useEffect(() => {
    if (push || !vapid || !bridges.length || !pushOn()) return
    const sync = () => void syncWebPush(vapid, bridges).then(reportPush, (err) => toast(`Alerts: ${errText(err)}`, 'error'))
    sync()
    const onMessage = (ev: MessageEvent) => ev.data?.type === 'push-subscription-change' && sync()
    navigator.serviceWorker.addEventListener('message', onMessage)
    return () => navigator.serviceWorker.removeEventListener('message', onMessage)
  }, [push, vapid, bridges])

  const update = (list: SavedBridge[]) => {
    saveBridges(list)
    setBridges(list)
  }
  const wide = useWide()
  // One "needs you" count everywhere: the tab title and the installed app's badge.
  const count = needsYouCount([...feeds.values()].map((f) => ({ agents: f.snapshot.agents ?? [], seen: f.seen })))
  useEffect(() => {
    document.title = count ? `(${count}) herdr` : 'herdr'
    const nav = navigator as Navigator & { setAppBadge?: (n?: number) => Promise<void>; clearAppBadge?: () => Promise<void> }
    void (count ? nav.setAppBadge?.(count) : nav.clearAppBadge?.())?.catch(() => {})
  }, [count])
  // Opening an agent marks it seen up to its current state, on every device of this user.
  const shown = route.view === 'agent' ? feeds.get(route.bridge)?.snapshot.agents?.find((a) => a.pane_id === route.pane) : undefined
  useEffect(() => {
    if (route.view === 'agent' && shown && typeof shown.state_change_seq === 'number') feeds.get(route.bridge)?.markSeen(route.pane, shown.state_change_seq)
  }, [route.view === 'agent' ? `${route.bridge} ${route.pane}` : '', shown?.state_change_seq])
  const alerts = bridges.length ? alertsControl(alertRoute({ pushConfig: push, webPushKey: vapid }), bridges) : ''

  let body
  if (route.view === 'pair' || bridges.length === 0) {
    // Keyed by the link's code, so opening a pairing link fills the form even when it is already shown.
    body = html`<${PairView}
      key=${route.view === 'pair' ? `${route.url ?? ''} ${route.code ?? ''}` : ''}
      initial=${route.view === 'pair' ? route : {}}
      hasBridges=${bridges.length > 0}
      onPaired=${(b: Omit<SavedBridge, 'key'>) => {
        update(upsertBridge(bridges, b))
        location.hash = '#/'
      }}
    />`
  } else if (route.view === 'agent') {
    const b = bridges.find((x) => x.key === route.bridge)
    const feed = b && feeds.get(b.key)
    const agent = feed?.snapshot.agents?.find((a) => a.pane_id === route.pane)
    body =
      b && feed
        ? // Keyed by the pane: another pane starts afresh (no card of the previous one, watching, not in control).
          html`<${AgentView}
            key=${`${b.key} ${route.pane}`}
            api=${feed.api}
            bridgeKey=${b.key}
            pane=${route.pane}
            tab=${route.tab}
            feed=${feed}
            agent=${agent}
            plain=${isPlainPane(feed.snapshot, route.pane)}
          />`
        : html`<main class="pane">
            <p>Unknown bridge. <a href="#/">Back to the inbox</a></p>
          </main>`
  } else if (route.view === 'open') {
    body = html`<${OpenFromNotification} bridges=${bridges} server=${route.server} pane=${route.pane} />`
  } else if (route.view === 'next') {
    body = html`<${NextView} feeds=${feeds} />`
  } else if (route.view !== 'inbox') {
    body = bridgeView(route, bridges, alerts)
  }
  const forget = (key: string) => {
    feeds.get(key)?.dropCache()
    update(bridges.filter((x) => x.key !== key))
  }
  const inbox = html`<${InboxView} bridges=${bridges} feeds=${feeds} onRemove=${forget} compact=${!!body} />`
  // From 1024 px up the list stays beside whatever is open; on a phone one view at a time. The
  // detail keeps its place in the tree either way, so resizing never restarts what it shows.
  const split = wide && route.view !== 'pair' && bridges.length > 0
  const content = !body
    ? inbox
    : html`<div class=${split ? 'split' : 'single'}>
        <div class="split-detail">${body}</div>
        ${split ? html`<aside class="split-list" aria-label="Agents list">${inbox}</aside>` : null}
      </div>`
  const current = route.view === 'agent' ? bridges.find((b) => b.key === route.bridge) : 'bridge' in route && route.bridge ? bridges.find((b) => b.key === route.bridge) : undefined

  const here = route.view
  const link = (view: string, href: string, label: string, extra: unknown = '') =>
    html`<a href=${href} class=${here === view ? 'nav-link active' : 'nav-link'} aria-current=${here === view ? 'page' : undefined}>${label}${extra}</a>`
  return html` <a class="skip" href="#content">Skip to content</a>
    <header class="top">
      <a class="brand" href="#/">herdr</a>
      <nav class="row" aria-label="App">
        ${alerts}
        <a class="button ghost small" href="#/pair">Add bridge</a>
      </nav>
    </header>
    ${
      bridges.length > 0 &&
      route.view !== 'pair' &&
      html`<nav class="sections" aria-label="Sections">
        ${link('inbox', '#/', 'Inbox', count ? html` <span class="needs" aria-label=${`${count} need you`}>${count}</span>` : '')} ${link('next', '#/next', 'Next')}
        ${link('start', viewHref('start', current?.key), 'Start')} ${link('spaces', viewHref('spaces', current?.key), 'Spaces')}
        ${link('timeline', viewHref('timeline', current?.key), 'Timeline')} ${link('usage', viewHref('usage', current?.key), 'Usage')}
        ${link('devices', viewHref('devices', current?.key), 'Devices')} ${link('alerts', viewHref('alerts', current?.key), 'Alerts')}
      </nav>`
    }
    <${StaleBanner} feeds=${current ? [feeds.get(current.key)].filter(Boolean) : [...feeds.values()]} />
    <div id="content">${content}</div>
    <${Toasts} />`
}

function reportPush(r: SyncResult): void {
  for (const f of r.failed) toast(`Push: ${f.bridge}: ${f.error}`, 'error')
}

/**
 * "Enable push": permission, the push worker, an FCM token, then /register-token on every
 * bridge. It stands in for "Enable alerts": the same permission turns the page's alerts on.
 */
function PushButton({ config, bridges }: { config: PushConfig; bridges: SavedBridge[] }) {
  const [perm, setPerm] = useState(Notification.permission)
  const [on, setOn] = useState(pushOn)
  const [busy, setBusy] = useState(false)
  if (!bridges.length || perm === 'denied') return null
  async function enable() {
    setBusy(true)
    try {
      const r = await enablePush(config, bridges)
      setOn(true)
      reportPush(r)
      if (!r.failed.length) toast('Push notifications are on for this browser')
    } catch (err) {
      toast(`Push not enabled: ${errText(err)}`, 'error')
    } finally {
      setPerm(Notification.permission)
      setBusy(false)
    }
  }
  return html`<button
    class="ghost small push-toggle"
    disabled=${busy || on}
    onClick=${enable}
    title="Get a notification on this device when an agent is blocked or done, even with this page closed"
  >
    ${busy ? 'Enabling push…' : on ? 'Push on' : 'Enable push'}
  </button>`
}

/** "Enable alerts" with standard Web Push: permission, the push worker, a subscription, then /webpush/subscribe. */
function WebPushButton({ vapid, bridges }: { vapid: string; bridges: SavedBridge[] }) {
  const [perm, setPerm] = useState(Notification.permission)
  const [on, setOn] = useState(pushOn)
  const [busy, setBusy] = useState(false)
  if (perm === 'denied') return null
  async function enable() {
    setBusy(true)
    try {
      const r = await enableWebPush(vapid, bridges)
      setOn(true)
      reportPush(r)
      if (!r.failed.length) toast('Alerts are on for this browser')
    } catch (err) {
      toast(`Alerts not enabled: ${errText(err)}`, 'error')
    } finally {
      setPerm(Notification.permission)
      setBusy(false)
    }
  }
  return html`<button
    class="ghost small alerts-toggle"
    disabled=${busy || on}
    onClick=${enable}
    title="Get a notification on this device when an agent is blocked or done, even with this page closed"
  >
    ${busy ? 'Enabling alerts…' : on ? 'Alerts on' : 'Enable alerts'}
  </button>`
}

/** `#/open/<server_id>/<pane>` from a push notification: the bridge whose server_id matches, never another. */
function OpenFromNotification({ bridges, server, pane }: { bridges: SavedBridge[]; server: string; pane: string }) {
  const b = server ? bridges.find((x) => x.server_id === server) : bridges[0]
  useEffect(() => {
    if (b) location.replace(agentHref(b.key, pane))
  }, [b?.key, pane])
  if (b) return null
  return html`<main class="pane">
    <p>This notification came from a bridge this browser is not paired with. <a href="#/">Back to the inbox</a></p>
  </main>`
}

/** The alerts control for the way alerts can be delivered; none when they cannot be. */
function alertsControl(route: ReturnType<typeof alertRoute<PushConfig>>, bridges: SavedBridge[]) {
  if (route?.via === 'fcm') return html`<${PushButton} config=${route.config} bridges=${bridges} />`
  if (route?.via === 'webpush') return html`<${WebPushButton} vapid=${route.key} bridges=${bridges} />`
  return ''
}

/** Whether the window is wide enough for the list beside the detail (1024 px and up). */
function useWide(): boolean {
  const q = '(min-width: 1024px)'
  const [wide, setWide] = useState(() => matchMedia(q).matches)
  useEffect(() => {
    const m = matchMedia(q)
    const on = () => setWide(m.matches)
    m.addEventListener('change', on)
    return () => m.removeEventListener('change', on)
  }, [])
  return wide
}

/** A view of one bridge (`?b=`, else the first paired one). */
function bridgeView(route: Extract<Route, { bridge?: string; params: URLSearchParams }>, bridges: SavedBridge[], alerts: unknown) {
  const b = (route.bridge && bridges.find((x) => x.key === route.bridge)) || bridges[0]
  const feed = b && feeds.get(b.key)
  if (!b || !feed)
    return html`<main class="pane">
      <p>Unknown bridge. <a href="#/">Back to the inbox</a></p>
    </main>`
  const k = `${route.view} ${b.key}`
  switch (route.view) {
    case 'start':
      return html`<${StartView} key=${k} feed=${feed} params=${route.params} />`
    case 'spaces':
      return html`<${SpacesView} key=${k} feed=${feed} />`
    case 'timeline':
      return html`<${TimelineView} key=${k} api=${feed.api} bridgeKey=${b.key} />`
    case 'usage':
      return html`<${UsageView} key=${k} api=${feed.api} />`
    case 'devices':
      return html`<${DevicesView} key=${k} api=${feed.api} />`
    case 'alerts':
      return html`<${AlertsView} key=${k} feed=${feed} alertsControl=${alerts} />`
  }
}

/**
 * When access to a bridge is lost, every view says so above its (greyed) data: since when, and
 * what to do (Pair again for a refused token).
 */
function StaleBanner({ feeds: list }: { feeds: Array<FeedClient | undefined> }) {
  const stale = list.filter((f): f is FeedClient => !!f && f.stale)
  if (!stale.length) return null
  const now = Date.now()
  return html`<div class="stale-banner" role="alert">
    ${stale.map(
      (f) =>
        html`<p data-stale-state=${f.status}>
          <span><strong>${f.api.bridge.name || f.api.bridge.url}</strong>${`: ${staleWhy(f.status)}, showing what was seen ${sinceText(f.lastLive, now)}.`}</span>
          ${f.status === 'unpaired' && html`<a class="button small primary" href="#/pair">Pair again</a>`}
        </p>`,
    )}
  </div>`
}

const staleWhy = (status: string) => (status === 'unpaired' ? 'access refused' : status === 'offline' ? 'unreachable' : status === 'no-herdr' ? 'no herdr' : 'reconnecting')

/**
 * Toasts sit at the bottom, never over the header or tabs; several collapse into one line, which
 * shows the result of what the user did before an agent's alert (lib/toasts.ts says why).
 */
function Toasts() {
  const list = currentToasts()
  const shown = shownToast(list)
  return html`<div class="toasts" role="status" aria-live="polite">
    ${shown && html`<div key=${shown.id} class=${`toast toast-${shown.kind}`}>${shown.text}${list.length > 1 && html` <span class="more">+${list.length - 1} more</span>`}</div>`}
  </div>`
}
