import { useEffect, useRef, useState } from 'preact/hooks'
import { html, toast, errText } from '../ui.ts'
import type { FeedClient } from '../feedclient.ts'

/**
 * A button for a call that changes something on the host (start, stop, close, delete…). It can
 * ask first (inline, so it works the same on a phone and in tests), shows progress with the
 * seconds elapsed while the call runs (lifecycle calls can take up to two minutes), then one
 * line with the result under it, also as a toast.
 */
export function ActionButton({
  label,
  run,
  confirm,
  confirmLabel,
  busyLabel,
  danger,
  small,
  disabled,
  onDone,
}: {
  label: string
  /** Returns the one-line result to show. */
  run: () => Promise<string>
  /** When set, the first click shows this question with Confirm / Cancel. */
  confirm?: string
  confirmLabel?: string
  busyLabel?: string
  danger?: boolean
  small?: boolean
  disabled?: boolean
  onDone?: (ok: boolean) => void
}) {
  const [asking, setAsking] = useState(false)
  const [busy, setBusy] = useState(false)
  const [secs, setSecs] = useState(0)
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null)
  const live = useRef(true)
  useEffect(() => () => void (live.current = false), [])
  useEffect(() => {
    if (!busy) return
    const started = Date.now()
    const t = setInterval(() => setSecs(Math.round((Date.now() - started) / 1000)), 1000)
    return () => clearInterval(t)
  }, [busy])

  async function go() {
    setAsking(false)
    setBusy(true)
    setSecs(0)
    setResult(null)
    let ok = false
    let text: string
    try {
      text = await run()
      ok = true
    } catch (err) {
      text = errText(err)
    }
    toast(text, ok ? 'info' : 'error')
    if (live.current) {
      setBusy(false)
      setResult({ ok, text })
    }
    onDone?.(ok)
  }

  const cls = [danger ? 'danger' : '', small ? 'small' : ''].join(' ').trim()
  return html`<span class="action">
    ${
      asking
        ? html`<span class="confirm" role="group" aria-label=${confirm}>
            <span class="confirm-text">${confirm}</span>
            <button class=${`${cls} primary`} onClick=${go}>${confirmLabel ?? label}</button>
            <button class="ghost small" onClick=${() => setAsking(false)}>Cancel</button>
          </span>`
        : html`<button class=${cls} disabled=${busy || disabled} aria-busy=${busy} onClick=${() => (confirm ? setAsking(true) : void go())}>
            ${busy ? `${busyLabel ?? label + '…'}${secs >= 2 ? ` ${secs} s` : ''}` : label}
          </button>`
    }
    ${result && html`<span class=${result.ok ? 'result ok' : 'result fail'} role="status">${result.text}</span>`}
  </span>`
}

/**
 * Close a pane, after asking (naming the agent in it, if any): the agent view's "Close pane" and
 * each pane of the Spaces list. The list is read again at once; `onClosed` runs before that.
 */
export function ClosePaneButton({
  feed,
  pane,
  agentKind,
  label = 'Close pane',
  onClosed,
}: {
  feed: FeedClient
  pane: string
  agentKind?: string
  label?: string
  onClosed?: () => void
}) {
  return html`<${ActionButton}
    label=${label}
    small
    danger
    confirm=${agentKind ? `Close this pane and the ${agentKind} agent in it?` : 'Close this shell pane?'}
    run=${async () => {
      await feed.api.post('/pane/close', { pane_id: pane })
      onClosed?.()
      void feed.refetch()
      return `Closed pane ${pane}`
    }}
  />`
}
