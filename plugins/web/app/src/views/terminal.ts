import { useEffect, useRef, useState } from 'preact/hooks'
import { html } from '../ui.ts'
import type { Api } from '../lib/api.ts'
import { fitFont, MIN_FONT, paneSize, type Size } from '../lib/pane-size.ts'
import { readableLines, READ_FONT, type ReadLine } from '../lib/readable.ts'
import { useWatchOnly } from '../lib/device.ts'
import './phone.css'

/**
 * Bytes for the key bar, typed into the pane as /attach input (Esc 0x1b, Ctrl+C 0x03, Ctrl+D
 * 0x04, Shift+Tab CSI Z, arrows as CSI sequences): the keys an agent's prompts need. One row
 * that scrolls sideways on a phone.
 */
export const KEYS: Array<[string, string, string]> = [
  ['Esc', '\x1b', 'Escape'],
  ['⏎', '\r', 'Enter'],
  ['Tab', '\t', 'Tab'],
  ['⇧Tab', '\x1b[Z', 'Shift Tab'],
  ['↑', '\x1b[A', 'Arrow up'],
  ['↓', '\x1b[B', 'Arrow down'],
  ['←', '\x1b[D', 'Arrow left'],
  ['→', '\x1b[C', 'Arrow right'],
  ['^C', '\x03', 'Control C'],
  ['^D', '\x04', 'Control D'],
  ['1', '1', 'One'],
  ['2', '2', 'Two'],
  ['3', '3', 'Three'],
  ['4', '4', 'Four'],
  ['5', '5', 'Five'],
]

type WatchView = 'fit' | 'read'
const VIEW_KEY = 'herdr-bridge.terminal.v1'
function savedView(): { view: WatchView; font: number; wide: boolean } {
  try {
    const v = JSON.parse(localStorage.getItem(VIEW_KEY) ?? '{}')
    return { view: v.view === 'read' ? 'read' : 'fit', font: READ_FONT.clamp(Number(v.font) || READ_FONT.start), wide: v.wide === true }
  } catch {
    return { view: 'fit', font: READ_FONT.start, wide: false }
  }
}

const enc = new TextEncoder()

/**
 * xterm.js over WS /attach. Watching (mode=observe) is the default and cannot type: it renders
 * the pane at the desk's own size (herdr never resizes a pane for an observer) with the font
 * scaled to fit, and the box scrolls when even the smallest legible font is too big. "Take
 * control" reconnects with mode=control: the terminal then fits the viewport (xterm's fit
 * addon) and the pane is resized to it; if the desk holds the pane, it offers takeover=1.
 */
export function TerminalView({ api, pane }: { api: Api; pane: string }) {
  const host = useRef<HTMLDivElement>(null)
  const [mode, setMode] = useState<'observe' | 'control'>('observe')
  // A viewer device may only observe: no Take control (the bridge would refuse it).
  const watchOnly = useWatchOnly(api)
  const [takeover, setTakeover] = useState(false)
  const [status, setStatus] = useState('connecting')
  const [gen, setGen] = useState(0)
  const sendRef = useRef<(s: string) => void>(() => {})
  const mirrorRef = useRef<() => void>(() => {})
  // Watching: the whole pane scaled to fit (fit), or its text reflowed at a legible size (read).
  const [prefs, setPrefs] = useState(savedView)
  const [lines, setLines] = useState<ReadLine[]>([])
  const readRef = useRef<HTMLPreElement>(null)
  const reading = mode === 'observe' && prefs.view === 'read'
  const readingRef = useRef(reading)
  readingRef.current = reading
  const setPref = (p: Partial<typeof prefs>) =>
    setPrefs((old) => {
      const next = { ...old, ...p }
      localStorage.setItem(VIEW_KEY, JSON.stringify(next))
      return next
    })
  // Keep the reflowed text pinned to the bottom while the user has not scrolled up.
  useEffect(() => {
    const el = readRef.current
    if (el && el.dataset.pinned !== 'false') el.scrollTop = el.scrollHeight
  }, [lines, reading])

  useEffect(() => {
    let cleanup: (() => void) | undefined
    let gone = false
    void (async () => {
      const x = await import('./xterm.ts')
      const [size] = await Promise.all([mode === 'observe' ? paneSize(api, pane) : null, x.fontsReady()])
      if (!gone) cleanup = start(x, size)
    })()
    return () => {
      gone = true
      cleanup?.()
    }
  }, [api, pane, mode, takeover, gen])

  function start({ Terminal, FitAddon, TERM_FONT }: typeof import('./xterm.ts'), watchSize: Size | null): () => void {
    const box = host.current!
    const term = new Terminal({
      fontSize: 13,
      fontFamily: TERM_FONT,
      scrollback: 5000,
      cursorBlink: mode === 'control',
      disableStdin: mode !== 'control',
      theme: { background: '#0b0e14', foreground: '#e6e6e6' },
      ...(watchSize ?? {}),
    })
    const fit = new FitAddon()
    term.loadAddon(fit)
    term.open(box)
    /** Watching: the pane's size, the font scaled to the box. Control: rows and cols from the box. */
    let passes = 0
    let frame = 0
    const layout = () => {
      if (watchSize) {
        // Cell size does not scale linearly with the font (rounding to device pixels), so the
        // font is refined over a few frames until the rendered screen fits.
        passes = 0
        let shrinking = false
        cancelAnimationFrame(frame)
        const refine = () => {
          const screen = box.querySelector('.xterm-screen')?.getBoundingClientRect()
          if (!screen || !screen.height) return
          const style = getComputedStyle(box)
          const room = {
            width: box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
            height: box.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom),
          }
          const font = term.options.fontSize ?? 13
          let next = fitFont(font, { width: screen.width / term.cols, height: screen.height / term.rows }, watchSize, room)
          // Still too big at this size: step down until the last row is inside the box (a screen
          // too wide at the smallest font scrolls sideways instead).
          const over = screen.height > room.height + 0.5 || (screen.width > room.width + 0.5 && font > MIN_FONT)
          if (over && next >= font && font > MIN_FONT) next = Math.max(MIN_FONT, font - 0.5)
          // Once it had to shrink, it never grows back in this pass (no oscillation).
          if (over) shrinking = true
          else if (shrinking && next > font) return
          if (Math.abs(next - font) < 0.1 || ++passes > 12) return
          term.options.fontSize = next
          frame = requestAnimationFrame(refine)
        }
        refine()
        return
      }
      try {
        fit.fit()
      } catch {
        /* not laid out yet */
      }
    }
    layout()
    const params: Record<string, string> = { pane, mode, cols: String(watchSize?.cols ?? term.cols), rows: String(watchSize?.rows ?? term.rows) }
    if (mode === 'control' && takeover) params.takeover = '1'
    const ws = new WebSocket(api.ws('/attach', params))
    ws.binaryType = 'arraybuffer'
    setStatus('connecting')
    const resize = () => {
      if (mode === 'control' && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'resize', cols: term.cols, rows: term.rows }))
    }
    ws.onopen = () => {
      setStatus(mode === 'control' ? 'in control' : 'watching')
      resize()
      if (mode === 'control') term.focus()
    }
    ws.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return term.write(new Uint8Array(ev.data as ArrayBuffer))
      try {
        if (JSON.parse(ev.data)?.type === 'mode') {
          term.reset()
          resize()
        }
      } catch {
        term.write(ev.data)
      }
    }
    ws.onclose = (ev) => {
      if (ev.code === 4409) setStatus('busy')
      else if (ev.code === 4001) setStatus('taken over by another client')
      else setStatus(`closed${ev.reason ? `: ${ev.reason}` : ''}`)
    }
    const send = (s: string) => {
      if (mode === 'control' && ws.readyState === WebSocket.OPEN) ws.send(enc.encode(s))
    }
    // The key bar hands focus back so typing carries on in the terminal.
    sendRef.current = (s: string) => {
      send(s)
      term.focus()
    }
    const sub = term.onData(send)
    // The readable view mirrors xterm's buffer (the pane at its own size, never resized), once a frame.
    let readFrame = 0
    const mirror = () => {
      if (readFrame) return
      readFrame = requestAnimationFrame(() => {
        readFrame = 0
        if (readingRef.current) setLines(readableLines(term.buffer.active))
      })
    }
    const parsed = term.onWriteParsed(mirror)
    mirrorRef.current = mirror
    let t: ReturnType<typeof setTimeout> | undefined
    const ro = new ResizeObserver(() => {
      clearTimeout(t)
      t = setTimeout(() => {
        layout()
        resize()
      }, 150)
    })
    ro.observe(box)
    return () => {
      clearTimeout(t)
      cancelAnimationFrame(frame)
      cancelAnimationFrame(readFrame)
      ro.disconnect()
      sub.dispose()
      parsed.dispose()
      ws.close(1000)
      term.dispose()
    }
  }

  const control = mode === 'control'
  useEffect(() => {
    if (reading) mirrorRef.current()
  }, [reading])
  return html` <section class="terminal-view" aria-label="Terminal">
    <div class="row term-bar">
      <span role="status" class="term-status">${status}</span>
      ${
        !control &&
        html`<div class="watch-view" role="group" aria-label="How to watch">
          <button class=${reading ? 'small' : 'small active'} aria-pressed=${!reading} onClick=${() => setPref({ view: 'fit' })}>Whole screen</button>
          <button class=${reading ? 'small active' : 'small'} aria-pressed=${reading} onClick=${() => setPref({ view: 'read' })}>Readable</button>
        </div>`
      }
      ${
        reading &&
        html`<div class="read-tools" role="group" aria-label="Text size">
          <button class="small" aria-label="Smaller text" disabled=${prefs.font <= READ_FONT.min} onClick=${() => setPref({ font: READ_FONT.clamp(prefs.font - 1) })}>A−</button>
          <button class="small" aria-label="Larger text" disabled=${prefs.font >= READ_FONT.max} onClick=${() => setPref({ font: READ_FONT.clamp(prefs.font + 1) })}>A+</button>
          <button
            class=${prefs.wide ? 'small active' : 'small'}
            aria-pressed=${prefs.wide}
            title="Keep the pane's lines whole and scroll sideways"
            onClick=${() => setPref({ wide: !prefs.wide })}
          >
            ↔
          </button>
        </div>`
      }
      ${!control && !watchOnly && html`<button class="small primary" onClick=${() => (setTakeover(false), setMode('control'))}>Take control</button>`}
      ${control && status === 'busy' && html`<span class="muted small">Someone else is typing in this pane.</span><button class="small" onClick=${() => (setTakeover(true), setGen(gen + 1))}>Take over</button>`}
      ${control && html`<button class="small" onClick=${() => setMode('observe')}>Just watch</button>`}
      ${status.startsWith('closed') && html`<button class="small" onClick=${() => setGen(gen + 1)}>Reconnect</button>`}
    </div>
    <div class="term" ref=${host} aria-label="Terminal output" data-mode=${mode} data-view=${reading ? 'read' : 'fit'}></div>
    ${
      reading &&
      html`<pre
        class=${prefs.wide ? 'term-read wide' : 'term-read'}
        ref=${readRef}
        aria-label="Terminal text"
        aria-live="off"
        style=${`font-size:${prefs.font}px`}
        onScroll=${(e: Event) => {
          const el = e.currentTarget as HTMLElement
          el.dataset.pinned = String(el.scrollTop + el.clientHeight >= el.scrollHeight - 4)
        }}
      >
${lines.map((l) => (l.rule ? html`<hr />` : html`<span>${l.text + '\n'}</span>`))}</pre>`
    }
    ${
      // A viewer never types: no key bar of buttons it could never press.
      !watchOnly &&
      html`<div class="keybar" role="toolbar" aria-label="Special keys">
        ${KEYS.map(([label, seq, name]) => html`<button class="key" disabled=${!control} aria-label=${name} onClick=${() => sendRef.current(seq)}>${label}</button>`)}
      </div>`
    }
  </section>`
}
