import { useEffect, useState } from 'preact/hooks'
import { html, toast, errText } from '../ui.ts'
import type { Api } from '../lib/api.ts'

/**
 * Mute this pane's alerts on this device (`POST /notify/mute`, `/notify/unmute`). Hidden on a
 * bridge without the routes (an older bridge answers 404).
 */
export function MuteToggle({ api, pane }: { api: Api; pane: string }) {
  const [muted, setMuted] = useState<boolean | null>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    let live = true
    api.get('/notify/mutes').then(
      (r) => live && setMuted(!!r?.mutes && pane in r.mutes),
      () => live && setMuted(null),
    )
    return () => void (live = false)
  }, [api, pane])
  if (muted === null) return null
  async function toggle() {
    setBusy(true)
    try {
      await api.post(muted ? '/notify/unmute' : '/notify/mute', { pane })
      setMuted(!muted)
      toast(muted ? 'Alerts for this pane are on again' : 'Alerts for this pane are muted on this device')
    } catch (err) {
      toast(errText(err), 'error')
    } finally {
      setBusy(false)
    }
  }
  return html`<button
    class="ghost small mute-toggle"
    disabled=${busy}
    aria-pressed=${muted}
    onClick=${toggle}
    title=${muted ? 'Get alerts for this pane again' : 'No alerts for this pane on this device'}
  >
    ${muted ? 'Unmute' : 'Mute'}
  </button>`
}
