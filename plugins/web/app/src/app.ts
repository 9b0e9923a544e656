import { useEffect, useReducer, useState } from 'preact/hooks'
import { html, toast, currentToasts, onToasts, errText } from './ui.ts'
import { Api } from './lib/api.ts'
import { loadBridges, saveBridges, upsertBridge, type SavedBridge } from './lib/bridges.ts'
import { agentTitle, isPlainPane } from './lib/inbox.ts'
import { FeedClient } from './feedclient.ts'
import { agentHref, parseRoute } from './route.ts'
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
function alertFor(b: SavedBridge, feed: FeedClient, f: any): void {
  if (f.source !== 'multiplexer' || f.type !== 'pane_agent_status_changed') return
  const st = f.payload?.agent_status
  if (st !== 'blocked' && st !== 'done') return
  const pane = f.payload?.pane_id
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
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  const [, bump] = useReducer((n: number) => n + 1, 0)
  const tick = () => bump(undefined)

  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash))
    addEventListener('hashchange', on)
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
            agent=${agent}
            plain=${isPlainPane(feed.snapshot, route.pane)}
          />`
        : html`<main class="pane">
            <p>Unknown bridge. <a href="#/">Back to the inbox</a></p>
          </main>`
  } else if (route.view === 'open') {
    body = html`<${OpenFromNotification} bridges=${bridges} server=${route.server} pane=${route.pane} />`
  } else {
    body = html`<${InboxView} bridges=${bridges} feeds=${feeds} onRemove=${(key: string) => update(bridges.filter((x) => x.key !== key))} />`
  }

  return html` <a class="skip" href="#content">Skip to content</a>
    <header class="top">
      <a class="brand" href="#/">herdr</a>
      <nav class="row" aria-label="App">
        ${bridges.length ? alertsControl(alertRoute({ pushConfig: push, webPushKey: vapid }), bridges) : ''}
        <a class="button ghost small" href="#/pair">Add bridge</a>
      </nav>
    </header>
    <div id="content">${body}</div>
    <div class="toasts" role="status" aria-live="polite">${currentToasts().map((t) => html`<div key=${t.id} class=${`toast toast-${t.kind}`}>${t.text}</div>`)}</div>`
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
