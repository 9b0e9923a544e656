import { useEffect, useState } from 'preact/hooks'
import { html, errText, fieldValue } from '../ui.ts'
import type { Api } from '../lib/api.ts'
import { relativeTime } from '../lib/inbox.ts'
import { ActionButton } from './action.ts'
import { useWatchOnly } from '../lib/device.ts'

interface Device {
  id: string
  name: string
  role: string
  paired_at: number
  last_seen?: number
}

const ROLE_TEXT: Record<string, string> = {
  viewer: 'watches agents; cannot answer, type or change anything',
  default: 'watches and acts on agents',
  owner: 'also manages the paired devices',
}

/**
 * This device's role (GET /device); an owner lists, renames and revokes devices (GET /devices,
 * POST /devices/rename|revoke); a device that may act sends a test push to every device (POST /testpush).
 */
export function DevicesView({ api }: { api: Api }) {
  const [me, setMe] = useState<{ id: string; name: string; role: string } | null>(null)
  const [list, setList] = useState<Device[] | null>(null)
  const [error, setError] = useState('')
  const load = async () => {
    try {
      const m = await api.get('/device')
      setMe(m)
      if (m.role === 'owner') setList((await api.get('/devices')).devices)
    } catch (err) {
      setError(errText(err))
    }
  }
  useEffect(() => void load(), [api])
  const now = Date.now()
  return html`<main class="pane view" aria-labelledby="dev-title">
    <h1 id="dev-title">Devices</h1>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${
      me &&
      html`<p class="me" data-role=${me.role}>
        This device${me.name ? html` (<strong>${me.name}</strong>)` : ''} is <strong class="role">${me.role}</strong>: ${ROLE_TEXT[me.role] ?? ''}.
      </p>`
    }
    ${
      me &&
      me.role !== 'owner' &&
      html`<p class="muted small">
        Only an owner device manages devices. On the host: <code>bridge devices role ${me.id || '<id>'} owner</code>, or pair one with <code>bridge pair --role owner</code>.
      </p>`
    }
    ${
      list &&
      html`<ul class="devices" aria-label="Paired devices">
        ${list.map((d) => html`<${DeviceRow} key=${d.id} api=${api} device=${d} mine=${d.id === me?.id} now=${now} onChange=${load} />`)}
      </ul>`
    }
    <${TestPush} api=${api} />
  </main>`
}

interface TestPushAnswer {
  push_enabled: boolean
  delivered?: number
  devices?: number
}

/** What a test push did, in one line. */
export function testPushText(r: TestPushAnswer): string {
  if (!r.push_enabled) return 'No alert channel is set up on this bridge: nothing went out'
  if (r.delivered === undefined) return 'Test alert sent; the channels are still delivering it'
  return `Test alert sent: ${r.delivered} of ${r.devices ?? r.delivered} delivered`
}

/** A sample alert through every channel of the bridge, to every device (POST /testpush); not for a watch-only device. */
function TestPush({ api }: { api: Api }) {
  if (useWatchOnly(api)) return null
  return html`<section class="test-push" aria-labelledby="test-push-title">
    <h2 id="test-push-title">Test push</h2>
    <p class="muted small">Sends "Test notification: push notifications work" through every channel this bridge has: each paired device's push, ntfy and webhooks.</p>
    <${ActionButton} label="Send test push" busyLabel="Sending…" run=${async () => testPushText(await api.post('/testpush', {}))} />
  </section>`
}

/** "seen 5 min ago", or "seen just now" (relativeTime says "now" for under 45 s). */
const seenText = (at: number, now: number) => {
  const ago = relativeTime(at, now)
  return !ago || ago === 'now' ? 'just now' : `${ago} ago`
}

function DeviceRow({ api, device: d, mine, now, onChange }: { api: Api; device: Device; mine: boolean; now: number; onChange: () => void }) {
  const [name, setName] = useState(d.name)
  return html`<li class="device" data-device=${d.id}>
    <div class="row">
      <label class="sr-only" for=${`dn-${d.id}`}>Name of ${d.name}</label>
      <input id=${`dn-${d.id}`} class="device-name" value=${name} maxlength=${100} onInput=${(e: Event) => setName(fieldValue(e))} />
      <span class="tag">${d.role}</span> ${mine && html`<span class="muted small">this device</span>`}
    </div>
    <div class="row">
      <span class="muted small">paired ${new Date(d.paired_at).toLocaleDateString()}${d.last_seen ? `, seen ${seenText(d.last_seen, now)}` : ''}</span>
      <${ActionButton}
        label="Rename"
        small
        disabled=${!name.trim() || name === d.name}
        run=${async () => {
          const r = await api.post('/devices/rename', { id: d.id, name })
          onChange()
          return `Renamed to ${r.name}`
        }}
      />
      <${ActionButton}
        label="Revoke"
        small
        danger
        confirm=${mine ? 'Revoke this very device? It stops working at once and must pair again.' : `Revoke ${d.name}? Its token stops working at once.`}
        run=${async () => {
          await api.post('/devices/revoke', { id: d.id })
          onChange()
          return `Revoked ${d.name}`
        }}
      />
    </div>
  </li>`
}
