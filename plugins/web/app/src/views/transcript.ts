import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { html } from '../ui.ts'
import type { Api } from '../lib/api.ts'
import { jsonObject } from '../lib/json.ts'
import { emptyTranscript, olderRequest, transcriptFrame, type Entry, type TranscriptState } from '../lib/transcript.ts'
import { DiffBlock } from './diff.ts'

/** WS /agent-transcript: backlog then live tail; older pages when scrolled to the top. */
export function TranscriptView({ api, pane }: { api: Api; pane: string }) {
  const st = useRef<TranscriptState>(emptyTranscript())
  const [, setVersion] = useState(0)
  const [status, setStatus] = useState('connecting')
  const box = useRef<HTMLDivElement>(null)
  const ws = useRef<WebSocket | null>(null)
  const anchor = useRef<{ height: number; top: number } | null>(null)
  const stick = useRef(true)

  useEffect(() => {
    st.current = emptyTranscript()
    let retry: ReturnType<typeof setTimeout> | undefined
    let stopped = false
    let attempts = 0
    const open = () => {
      const sock = new WebSocket(api.ws('/agent-transcript', { pane }))
      ws.current = sock
      sock.onmessage = (ev) => {
        if (typeof ev.data !== 'string') return
        for (const line of ev.data.split('\n')) {
          if (!line.trim()) continue
          let f: unknown
          try {
            f = JSON.parse(line)
          } catch {
            continue
          }
          const type = jsonObject(f)?.type
          if (type === 'session_changed') stick.current = true
          st.current = transcriptFrame(st.current, f)
          if (type === 'backlog_complete') {
            attempts = 0
            setStatus('')
          }
        }
        setVersion(st.current.version)
      }
      sock.onclose = async () => {
        if (stopped) return
        ws.current = null
        // A plain GET tells why (404: no transcript for this pane).
        try {
          const r = await fetch(api.ws('/agent-transcript', { pane }).replace(/^ws/, 'http'))
          if (r.status >= 400 && r.status !== 426) return setStatus(`Transcript unavailable: ${(await r.text()).slice(0, 200)}`)
        } catch {
          /* unreachable: retry */
        }
        setStatus('reconnecting…')
        retry = setTimeout(open, Math.min(8000, 1000 * 2 ** attempts++))
      }
    }
    open()
    return () => {
      stopped = true
      clearTimeout(retry)
      ws.current?.close(1000)
    }
  }, [api, pane])

  // Keep the view pinned to the bottom for new entries, and steady when older ones are prepended.
  useLayoutEffect(() => {
    const el = box.current
    if (!el) return
    if (anchor.current) {
      el.scrollTop = anchor.current.top + (el.scrollHeight - anchor.current.height)
      if (!st.current.loadingOlder) anchor.current = null
    } else if (stick.current) el.scrollTop = el.scrollHeight
  })

  function onScroll() {
    const el = box.current!
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
    if (el.scrollTop < 80) loadOlder()
  }

  function loadOlder() {
    const sock = ws.current
    if (!sock || sock.readyState !== WebSocket.OPEN) return
    const req = olderRequest(st.current)
    if (!req) return
    anchor.current = { height: box.current!.scrollHeight, top: box.current!.scrollTop }
    sock.send(req)
    setVersion((v) => v + 1)
  }

  const s = st.current
  return html` <section class="transcript" aria-label="Transcript">
    <div class="transcript-scroll" ref=${box} onScroll=${onScroll} role="log" aria-live="polite" aria-relevant="additions">
      ${s.hasOlder && html`<button class="small ghost older" onClick=${loadOlder} disabled=${s.loadingOlder}>${s.loadingOlder ? 'Loading…' : 'Load older messages'}</button>`}
      ${status && html`<p class="muted" role="status">${status}</p>`} ${s.backlogDone && s.entries.length === 0 && html`<p class="muted">Nothing in this conversation yet.</p>`}
      ${s.entries.filter((e) => e.kind !== 'tool_result').map((e) => html`<${EntryView} key=${e.seq} e=${e} result=${e.tool ? s.results.get(e.tool.id) : undefined} />`)}
    </div>
  </section>`
}

/** What the call acted on (the command, the file, its description, the input); the title only when it says more than the name. */
function toolLine(t: NonNullable<Entry['tool']>): string {
  return t.command || t.file || t.subtitle || t.input_summary || (t.title && t.title !== t.name ? t.title : '') || ''
}

function EntryView({ e, result }: { e: Entry; result?: Entry }) {
  if (e.kind === 'tool_call' && e.tool) {
    const t = e.tool
    const r = result?.result
    const diff = r?.diff || t.diff
    const failed = r && r.ok === false
    return html`<details class=${`msg tool${failed ? ' failed' : ''}`} data-seq=${e.seq}>
      <summary>
        <span class="tool-name">${t.name}</span>
        <span class="tool-title">${toolLine(t)}</span
        >${failed ? html` <span class="badge badge-blocked">failed</span>` : ''}${!r ? html` <span class="muted small">running…</span>` : ''}
      </summary>
      ${t.subtitle && html`<p class="muted small">${t.subtitle}</p>`} ${t.command && html`<pre class="cmd">$ ${t.command}</pre>`} ${diff && html`<${DiffBlock} diff=${diff} />`}
      ${r?.output_summary && html`<pre class="output">${r.output_summary}</pre>`}
    </details>`
  }
  if (e.kind === 'thinking')
    return html`<details class="msg thinking" data-seq=${e.seq}>
      <summary>Thinking</summary>
      <p>${e.text}</p>
    </details>`
  return html`<div class=${`msg ${e.role}`} data-seq=${e.seq}>
    <span class="sr-only">${e.role === 'user' ? 'You' : e.role}: </span>
    <div class="text">${e.text ?? ''}</div>
  </div>`
}
