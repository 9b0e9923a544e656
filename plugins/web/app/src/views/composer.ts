import { useEffect, useRef, useState } from 'preact/hooks'
import { html, toast, errText } from '../ui.ts'
import type { Api } from '../lib/api.ts'
import { completions, commandText, slashQuery, type Command } from '../lib/commands.ts'

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

/**
 * The reply box: text ending in "\r" submits; a lone "/word" completes slash commands from
 * GET /commands; attachments upload to /image or /file and insert the returned path.
 */
export function ReplyBox({ api, pane, draft, onSent }: { api: Api; pane: string; draft?: string; onSent?: () => void }) {
  const [text, setText] = useState('')
  const [commands, setCommands] = useState<Command[]>([])
  const [active, setActive] = useState(0)
  const [busy, setBusy] = useState(false)
  const area = useRef<HTMLTextAreaElement>(null)
  const file = useRef<HTMLInputElement>(null)
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
  const q = slashQuery(text)
  const matches = q === null ? [] : completions(commands, q)
  const open = matches.length > 0

  async function send() {
    setBusy(true)
    try {
      await api.post('/send', { pane, text: text + '\r' })
      setText('')
      onSent?.()
    } catch (err) {
      toast(errText(err), 'error')
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
      if (!busy) void send()
    } else if (open && e.key === 'Escape') setText(text + ' ')
  }

  async function attach(f: File) {
    const isImage = /^image\/(png|jpeg|gif|webp)$/.test(f.type)
    setBusy(true)
    try {
      const r = await api.request(`/${isImage ? 'image' : 'file'}?pane=${encodeURIComponent(pane)}`, {
        method: 'POST',
        body: f,
        type: 'application/octet-stream',
        timeoutMs: 90_000,
      })
      setText((t) => (t && !t.endsWith(' ') ? t + ' ' : t) + r.path + ' ')
      toast(`Attached ${f.name}`)
      area.current?.focus()
    } catch (err) {
      toast(errText(err), 'error')
    } finally {
      setBusy(false)
      if (file.current) file.current.value = ''
    }
  }

  return html` <form class="reply" onSubmit=${(e: Event) => (e.preventDefault(), send())}>
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
    <label class="sr-only" for="reply-text">Reply to the agent</label>
    <textarea
      id="reply-text"
      ref=${area}
      rows="2"
      placeholder="Reply… (/ for commands)"
      value=${text}
      role="combobox"
      aria-expanded=${open}
      aria-controls="slash-list"
      aria-autocomplete="list"
      aria-activedescendant=${open ? `slash-${active}` : undefined}
      onInput=${(e: any) => (setText(e.currentTarget.value), setActive(0))}
      onKeyDown=${onKey}
    ></textarea>
    <div class="reply-actions">
      <input
        type="file"
        ref=${file}
        class="sr-only"
        id="attach-file"
        accept="image/png,image/jpeg,image/gif,image/webp,application/pdf,.docx,.pptx"
        onChange=${(e: any) => e.currentTarget.files?.[0] && attach(e.currentTarget.files[0])}
      />
      <label
        for="attach-file"
        class="button ghost"
        title="Attach an image or document"
        aria-label="Attach an image or document"
        tabindex="0"
        onKeyDown=${(e: KeyboardEvent) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), file.current?.click())}
        >${CLIP}</label
      >
      <button type="submit" class="primary" disabled=${busy}>Send</button>
    </div>
  </form>`
}
