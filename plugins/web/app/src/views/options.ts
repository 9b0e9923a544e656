import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { html } from '../ui.ts'
import { ApiError, type Api } from '../lib/api.ts'
import { wordsFor } from '../lib/compose.ts'
import { OPTIONS_API, useBridgeVersion } from '../lib/device.ts'
import './phone.css'

export interface Option {
  index: number
  label: string
  selected?: boolean
  key?: string
  /** The kind marks it as one to think twice about ("don't ask again", bypass modes): asked once more. */
  risky?: boolean
}

/** After options appear or move, taps are ignored this long: a tap aimed at what was there before must not land on what is there now. */
export const SETTLE_MS = 600
/** A risky option's second tap must come within this long. */
const CONFIRM_MS = 5000

type Outcome = { label: string; state: 'sending' | 'accepted' | 'refused' | 'unknown'; why?: string }

/**
 * The last answer's outcome per pane, kept outside the options: choosing one usually takes the
 * question (and its buttons) away at once, and the outcome must stay readable after that.
 */
const outcomes = new Map<string, Outcome>()
const watchers = new Set<() => void>()
function setOutcomeOf(pane: string, o: Outcome) {
  outcomes.set(pane, o)
  watchers.forEach((w) => w())
}

/** The outcome of the last option chosen in this pane: sent…, accepted, refused (why), or unknown. */
export function LastAnswer({ pane }: { pane: string }) {
  const [, redraw] = useState(0)
  useEffect(() => {
    const w = () => redraw((n) => n + 1)
    watchers.add(w)
    return () => void watchers.delete(w)
  }, [])
  const outcome = outcomes.get(pane)
  if (!outcome) return null
  return html`<p class=${`answer-state ${outcome.state}`} role="status" data-state=${outcome.state}>${outcomeText(outcome)}</p>`
}

const outcomeText = (o: Outcome) => `“${o.label}”: ${o.state === 'sending' ? 'sent…' : o.state === 'accepted' ? 'accepted' : o.state === 'refused' ? `refused: ${o.why}` : o.why}`

/**
 * A blocked agent's options. Each tap posts `/approve {agent, seq, option}`: the bridge chooses it
 * only while the agent is still blocked at the question's seq with that option on screen, so a
 * late tap never lands on the next question. The outcome stays on the card; nothing is resent.
 */
export function Options({
  api,
  pane,
  options,
  question,
  seq,
  onAnswered,
}: {
  api: Api
  pane: string
  options: Option[]
  question?: string
  /** The snapshot's state_change_seq for this question; unknown until the snapshot shows it blocked. */
  seq?: number
  onAnswered: () => void
}) {
  const [busy, setBusy] = useState(false)
  const [settling, setSettling] = useState(true)
  // A bridge older than API 7 ignores `option` and would choose the default: only that one is offered.
  const version = useBridgeVersion(api)
  const old = version !== undefined && version < OPTIONS_API
  const held = (o: Option) => old && !o.selected
  const [confirming, setConfirming] = useState<string | null>(null)
  const setOutcome = (o: Outcome) => setOutcomeOf(pane, o)
  const confirmTimer = useRef<ReturnType<typeof setTimeout>>()
  const shape = JSON.stringify([question, seq, options.map((o) => [o.index, o.key, o.label, o.selected])])
  // The buttons moved on the page (the text above them changed): a tap aimed before the move
  // could land on another option, so the settle time starts again.
  const box = useRef<HTMLDivElement>(null)
  const top = useRef<number | null>(null)
  const [moves, setMoves] = useState(0)
  useLayoutEffect(() => {
    const y = box.current ? box.current.getBoundingClientRect().top + window.scrollY : null
    if (top.current !== null && y !== null && Math.abs(y - top.current) > 2) setMoves((m) => m + 1)
    top.current = y
  })
  useEffect(() => {
    setSettling(true)
    const t = setTimeout(() => setSettling(false), SETTLE_MS)
    return () => clearTimeout(t)
  }, [shape, moves])
  // Another question (not merely a move): a pending "tap again" belonged to the old one.
  useEffect(() => setConfirming(null), [shape])
  useEffect(() => () => clearTimeout(confirmTimer.current), [])

  const id = (o: Option) => `${o.index}/${o.key ?? ''}`
  async function choose(o: Option) {
    if (settling || busy || seq === undefined || held(o)) return
    if (o.risky && confirming !== id(o)) {
      setConfirming(id(o))
      clearTimeout(confirmTimer.current)
      confirmTimer.current = setTimeout(() => setConfirming(null), CONFIRM_MS)
      return
    }
    setConfirming(null)
    setBusy(true)
    setOutcome({ label: o.label, state: 'sending' })
    try {
      const r = await api.post('/approve', { agent: pane, seq, option: o.index > 0 ? o.index : o.key })
      if (r?.applied === true) setOutcome({ label: o.label, state: 'accepted' })
      else setOutcome({ label: o.label, state: 'refused', why: r?.reason || 'not applied' })
    } catch (err) {
      setOutcome(
        err instanceof ApiError && err.status > 0
          ? { label: o.label, state: 'refused', why: wordsFor(err) }
          : { label: o.label, state: 'unknown', why: 'no answer from the bridge: it may have been chosen; look at the card before choosing again' },
      )
    } finally {
      setBusy(false)
      onAnswered()
    }
  }

  return html`<div class="options" ref=${box} data-settling=${settling ? 'true' : undefined}>
    ${options.map((o) => {
      const asking = confirming === id(o)
      return html`<button
        class=${`${o.selected ? 'option primary' : 'option'}${o.risky ? ' risky' : ''}${asking ? ' confirming' : ''}`}
        disabled=${busy || settling || seq === undefined || held(o)}
        title=${seq === undefined ? 'Waiting for the bridge to report this question' : o.risky ? 'Asks once more before choosing' : undefined}
        onClick=${() => choose(o)}
        data-default=${o.selected ? 'true' : undefined}
        data-risky=${o.risky ? 'true' : undefined}
      >
        ${o.index > 0 && html`<span class="num" aria-hidden="true">${o.index}</span>`}<span>${asking ? `Tap again to choose “${o.label}”` : o.label}</span>${o.key && !o.index ? html` <kbd>${o.key}</kbd>` : ''}
      </button>`
    })}
    ${old && options.some(held) && html`<p class="muted small old-bridge">Update this bridge to answer other options: it would choose the default.</p>`}
  </div>`
}
