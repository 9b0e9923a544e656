import { useCallback, useEffect, useState } from 'preact/hooks'
import { html } from '../ui.ts'
import type { FeedClient } from '../feedclient.ts'
import { ActionButton } from './action.ts'
import { MUTE_FOR, mute, untilText } from './alerts.ts'

/**
 * The agent view's one Mute control for this device's alerts from this pane: a menu of 1 h, 8 h
 * and until I unmute (POST /notify/mute), or Unmute while muted (POST /notify/unmute). Drawn once
 * the mute state is read, so it never offers the wrong one; not at all on a bridge without the
 * routes (an older bridge answers 404).
 */
export function MuteControl({ feed, pane }: { feed: FeedClient; pane: string }) {
  const api = feed.api
  // Muted until (unix ms, 0 = until unmuted), null when not muted, undefined before the read.
  const [until, setUntil] = useState<number | null | undefined>(undefined)
  const load = useCallback(
    () =>
      api.get('/notify/mutes').then(
        (r) => {
          const u = r.mutes?.[pane]
          setUntil(u !== undefined && (u === 0 || u > Date.now()) ? u : null)
        },
        () => setUntil(undefined),
      ),
    [api, pane],
  )
  useEffect(() => void load(), [load])
  if (until === undefined) return null
  if (until !== null)
    return html`<span class="mute-menu row">
      <span class="muted small">Muted ${untilText(until)}</span>
      <${ActionButton}
        label="Unmute"
        small
        run=${async () => {
          await api.post('/notify/unmute', { pane })
          await load()
          return 'Alerts for this pane are on again'
        }}
      />
    </span>`
  return html`<details class="mute-menu">
    <summary class="button small ghost">Mute…</summary>
    <div class="row">
      ${MUTE_FOR.map(
        ([label, ms]) =>
          html`<${ActionButton}
            label=${label}
            small
            run=${async () => {
              const r = await mute(feed, pane, ms)
              await load()
              return r
            }}
          />`,
      )}
    </div>
  </details>`
}
