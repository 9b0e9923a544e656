import { useEffect, useRef, useState } from 'preact/hooks'
import { html, toast, fieldValue, pickedFiles } from '../ui.ts'
import { ApiError, type Api, type PostResponses } from '../lib/api.ts'
import { completions, commandText, slashQuery, type Command } from '../lib/commands.ts'
import { attachTarget, prepareImage, sendText, wordsFor, type Attachment } from '../lib/compose.ts'
import { dictation, speech, type Dictation } from '../lib/voice.ts'
import './phone.css'

const CLIP = html`<svg
  width="18"
  height="18"
  viewBox="0 0 24 24"
  fill="none"
  stroke="currentColor"
  stroke-width="2"
  stroke-linecap="round"
  stroke-linejoin="round"
  aria-hidden="true"
>
  <path d="M21.4 11.1l-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5" />
</svg>`

const MIC = html`<svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" aria-hidden="true">
  <rect x="9" y="3" width="6" height="11" rx="3" />
  <path d="M5 11a7 7 0 0 0 14 0M12 18v3" />
</svg>`
const CAMERA = html`<svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" aria-hidden="true">
  <path d="M4 7h3l2-3h6l2 3h3v12H4z" />
  <circle cx="12" cy="13" r="4" />
</svg>`

/** Where a send is: on its way, taken by the bridge, refused (and why), or unknown (it may have landed: never resent). */
type SendState = { id: number; what: string; state: 'sending' | 'accepted' | 'refused' | 'unknown'; why?: string }

/** Files the pickers offer: what /image and /file take (images of other kinds are re-encoded first). */
const ACCEPT = 'image/*,application/pdf,.docx,.pptx,text/*,.md,.json,.csv,.log,.txt,.yaml,.yml,.toml,.ts,.js,.py,.go,.rs,.sh'

export interface ReplyProps {
  api: Api
  pane: string
  draft?: string
  onSent?: () => void
  /** The question on screen: replies carry its seq, so a reply to an answered question is refused, not typed. */
  seq?: number
  /** The bridge said the question moved on (409): read the card again. */
  onStale?: () => void
  /** The screen asks for a password or passphrase: a masked field, never kept. */
  secret?: boolean
}

/**
 * The reply box: text ending in "\r" submits; a lone "/word" completes slash commands from
 * GET /commands; files, photos, the camera, paste and drop upload to /image or /file at once and
 * show as removable chips whose paths go with the text. Each send shows its state and is never
 * sent again by the app.
 */
export function ReplyBox({ api, pane, draft, onSent, seq, onStale, secret }: ReplyProps) {
  const [text, setText] = useState('')
  const [commands, setCommands] = useState<Command[]>([])
  const [active, setActive] = useState(0)
  const [busy, setBusy] = useState(false)
  const [files, setFiles] = useState<Attachment[]>([])
  const [sends, setSends] = useState<SendState[]>([])
  const [listening, setListening] = useState(false)
  const [dragging, setDragging] = useState(false)
  const area = useRef<HTMLTextAreaElement>(null)
  const file = useRef<HTMLInputElement>(null)
  const camera = useRef<HTMLInputElement>(null)
  const dictating = useRef<Dictation | null>(null)
  const nextId = useRef(1)
  useEffect(() => {
    api.get(`/commands?pane=${encodeURIComponent(pane)}`).then(
      (r) => setCommands(Array.isArray(r?.commands) ? r.commands : []),
      () => setCommands([]),
    )
  }, [api, pane])
  useEffect(() => {
    if (draft !== undefined) {
      setText(draft)
      area.current?.focus()
    }
  }, [draft])
  // A secret typed for a password prompt is gone as soon as the prompt is.
  useEffect(() => {
    if (secret) return () => setText('')
  }, [secret])
  useEffect(() => () => dictating.current?.stop(), [])
  // The input grows with its text up to 40% of the screen.
  useEffect(() => {
    const el = area.current
    if (!el) return
    el.style.height = 'auto'
    el.style.height = `${Math.min(el.scrollHeight + 2, Math.round(window.innerHeight * 0.4))}px`
  }, [text, secret])
  const q = secret ? null : slashQuery(text)
  const matches = q === null ? [] : completions(commands, q)
  const open = matches.length > 0
  const uploading = files.some((f) => f.state === 'uploading')

  function track(s: Omit<SendState, 'id'>): number {
    const id = nextId.current++
    setSends((all) => [...all.slice(-2), { id, ...s }])
    return id
  }
  const update = (id: number, s: Partial<SendState>) => setSends((all) => all.map((x) => (x.id === id ? { ...x, ...s } : x)))

  async function send() {
    if (busy || uploading) return
    const ready = files.filter((f) => f.state === 'ready')
    const body = sendText(text, ready)
    setBusy(true)
    const id = track({ what: secret ? '••••••' : body.trim() || 'Enter', state: 'sending' })
    try {
      await api.post('/send', { pane, text: body + '\r', ...(seq !== undefined ? { seq } : {}) })
      update(id, { state: 'accepted' })
      setText('')
      setFiles((all) => all.filter((f) => !ready.includes(f)))
      onSent?.()
    } catch (err) {
      if (err instanceof ApiError && err.status > 0) {
        // Refused before anything was typed: the text stays for the user to look at again.
        update(id, { state: 'refused', why: wordsFor(err) })
        if (err.status === 409) onStale?.()
      } else update(id, { state: 'unknown', why: 'no answer from the bridge: it may have been typed; look before sending again' })
    } finally {
      setBusy(false)
    }
  }

  function pick(c: Command) {
    setText(commandText(c))
    setActive(0)
    area.current?.focus()
  }

  function onKey(e: KeyboardEvent) {
    if (open && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault()
      setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length)
    } else if (open && (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey))) {
      e.preventDefault()
      pick(matches[Math.min(active, matches.length - 1)])
    } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault()
      void send()
    } else if (open && e.key === 'Escape') setText(text + ' ')
  }

  /** A file input's change: attaches what was picked, if anything. */
  const onPick = (e: Event) => {
    const picked = pickedFiles(e)
    if (picked?.length) void attach(picked)
  }

  async function attach(list: FileList | File[]) {
    for (const picked of Array.from(list)) {
      const id = nextId.current++
      const isImage = picked.type.startsWith('image/')
      const a: Attachment = { id, name: picked.name || (isImage ? 'photo' : 'file'), state: 'uploading', preview: isImage ? URL.createObjectURL(picked) : undefined }
      setFiles((all) => [...all, a])
      void (async () => {
        try {
          const f = isImage ? await prepareImage(picked) : picked
          const r = await api.request<PostResponses['/file']>(attachTarget(f, pane), { method: 'POST', body: f, type: 'application/octet-stream', timeoutMs: 90_000 })
          setFiles((all) => all.map((x) => (x.id === id ? { ...x, state: 'ready', path: r.path } : x)))
        } catch (err) {
          setFiles((all) => all.map((x) => (x.id === id ? { ...x, state: 'failed', why: wordsFor(err) } : x)))
        }
      })()
    }
    if (file.current) file.current.value = ''
    if (camera.current) camera.current.value = ''
  }

  function remove(a: Attachment) {
    if (a.preview) URL.revokeObjectURL(a.preview)
    setFiles((all) => all.filter((x) => x.id !== a.id))
  }

  function toggleDictation() {
    if (dictating.current) return dictating.current.stop()
    const base = text && !text.endsWith(' ') ? text + ' ' : text
    dictating.current = dictation({
      onText: (heard) => setText(base + heard),
      onEnd: (why) => {
        dictating.current = null
        setListening(false)
        if (why) toast(why, 'error')
        area.current?.focus()
      },
    })
    setListening(!!dictating.current)
  }

  const canDictate = !secret && dictation.supported()
  return html` <form
    class=${dragging ? 'reply dragging' : 'reply'}
    onSubmit=${(e: Event) => (e.preventDefault(), send())}
    onDragOver=${(e: DragEvent) => (e.preventDefault(), setDragging(true))}
    onDragLeave=${() => setDragging(false)}
    onDrop=${(e: DragEvent) => (e.preventDefault(), setDragging(false), e.dataTransfer?.files.length && attach(e.dataTransfer.files))}
  >
    ${
      open &&
      html`<ul class="completions" role="listbox" id="slash-list" aria-label="Slash commands">
        ${matches.map(
          (c, i) =>
            html`<li
              role="option"
              id=${`slash-${i}`}
              aria-selected=${i === active}
              class=${i === active ? 'active' : ''}
              onMouseDown=${(e: Event) => (e.preventDefault(), pick(c))}
            >
              <strong>/${c.name.replace(/^\//, '')}</strong>${c.argument_hint && html` <span class="muted">${c.argument_hint}</span>`}<br /><span class="muted small"
                >${c.description}</span
              >
            </li>`,
        )}
      </ul>`
    }
    ${
      sends.length > 0 &&
      html`<ol class="send-states" aria-label="What you sent">
        ${sends.map(
          (s) =>
            html`<li class=${`send-state ${s.state}`} data-state=${s.state}>
              <span class="send-what">${s.what}</span>
              <span class="send-how">${s.state === 'sending' ? 'sent…' : s.state === 'accepted' ? 'accepted' : s.state === 'refused' ? `refused: ${s.why}` : s.why}</span>
            </li>`,
        )}
      </ol>`
    }
    ${
      files.length > 0 &&
      html`<ul class="attachments" aria-label="Attachments">
        ${files.map(
          (a) =>
            html`<li class=${`attachment ${a.state}`} data-state=${a.state} title=${a.why ?? a.path ?? a.name}>
              ${a.preview ? html`<img src=${a.preview} alt="" class="thumb" />` : html`<span class="file-icon" aria-hidden="true">${CLIP}</span>`}
              <span class="attachment-name">${a.name}</span>
              ${a.state === 'uploading' && html`<span class="muted small">uploading…</span>`}
              ${a.state === 'failed' && html`<span class="attachment-error" role="alert">${a.why}</span>`}
              <button type="button" class="ghost small" aria-label=${`Remove ${a.name}`} onClick=${() => remove(a)}>×</button>
            </li>`,
        )}
      </ul>`
    }
    <div class="reply-row">
      ${
        secret
          ? html`<label class="sr-only" for="reply-secret">Password for the prompt</label>
              <input
                id="reply-secret"
                type="password"
                autocomplete="off"
                class="secret"
                placeholder="Password (not kept)"
                value=${text}
                onInput=${(e: Event) => setText(fieldValue(e))}
                onKeyDown=${(e: KeyboardEvent) => e.key === 'Enter' && (e.preventDefault(), send())}
              />`
          : html`<label class="sr-only" for="reply-text">Reply to the agent</label>
              <textarea
                id="reply-text"
                ref=${area}
                rows="1"
                placeholder="Reply… (/ for commands)"
                value=${text}
                role="combobox"
                aria-expanded=${open}
                aria-controls="slash-list"
                aria-autocomplete="list"
                aria-activedescendant=${open ? `slash-${active}` : undefined}
                onInput=${(e: Event) => (setText(fieldValue(e)), setActive(0))}
                onKeyDown=${onKey}
                onPaste=${(e: ClipboardEvent) => e.clipboardData?.files.length && (e.preventDefault(), attach(e.clipboardData.files))}
              ></textarea>`
      }
      <div class="reply-actions">
        <input type="file" ref=${file} class="sr-only" id="attach-file" multiple accept=${ACCEPT} onChange=${onPick} />
        <label
          for="attach-file"
          class="button ghost"
          title="Attach files or photos"
          aria-label="Attach files or photos"
          tabindex="0"
          onKeyDown=${(e: KeyboardEvent) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), file.current?.click())}
          >${CLIP}</label
        >
        <input type="file" ref=${camera} class="sr-only" id="attach-camera" accept="image/*" capture="environment" onChange=${onPick} />
        <label
          for="attach-camera"
          class="button ghost"
          title="Take a photo"
          aria-label="Take a photo"
          tabindex="0"
          onKeyDown=${(e: KeyboardEvent) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), camera.current?.click())}
          >${CAMERA}</label
        >
        ${
          canDictate &&
          html`<button
            type="button"
            class=${listening ? 'ghost listening' : 'ghost'}
            aria-pressed=${listening}
            aria-label=${listening ? 'Stop dictation' : 'Dictate'}
            title="Dictate into the reply"
            onClick=${toggleDictation}
          >
            ${MIC}
          </button>`
        }
        <button type="submit" class="primary" disabled=${busy || uploading}>Send</button>
      </div>
    </div>
  </form>`
}

/** "Read aloud" for an agent's last answer, with the browser's own speech synthesis; absent where there is none. */
export function ReadAloud({ text }: { text: string }) {
  const [speaking, setSpeaking] = useState(false)
  useEffect(() => () => void (speaking && speech.stop()), [speaking])
  if (!speech.supported() || !text.trim()) return null
  const toggle = () => {
    if (speaking) return (speech.stop(), setSpeaking(false))
    setSpeaking(true)
    speech.say(text, () => setSpeaking(false))
  }
  return html`<button type="button" class="small ghost read-aloud" aria-pressed=${speaking} onClick=${toggle}>${speaking ? 'Stop reading' : 'Read aloud'}</button>`
}
