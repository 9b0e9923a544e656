import { useEffect, useState } from 'preact/hooks'
import { html, errText, fieldValue } from '../ui.ts'
import type { Api } from '../lib/api.ts'
import { commandText, completions, type Command } from '../lib/commands.ts'
import { ActionButton } from './action.ts'

/**
 * The agent kind's slash commands (GET /commands?pane=), searchable; running one types it into
 * the agent with its arguments (POST /send).
 */
export function CommandPalette({ api, pane, watchOnly }: { api: Api; pane: string; watchOnly?: boolean }) {
  const [commands, setCommands] = useState<Command[] | null>(null)
  const [kind, setKind] = useState('')
  const [error, setError] = useState('')
  const [q, setQ] = useState('')
  const [args, setArgs] = useState<Record<string, string>>({})
  useEffect(() => {
    api.get(`/commands?pane=${encodeURIComponent(pane)}`).then(
      (r) => {
        setCommands(r.commands ?? [])
        setKind(r.agent_kind ?? '')
      },
      (err) => setError(errText(err)),
    )
  }, [api, pane])
  if (error) return html`<p class="error" role="alert">${error}</p>`
  if (!commands) return html`<p class="muted">Loading commands…</p>`
  const shown = q.trim() ? completions(commands, q.trim().replace(/^\//, '').toLowerCase(), 500) : commands
  return html`<section class="palette" aria-label="Slash commands">
    <label
      >Find a ${kind} command
      <input type="search" value=${q} onInput=${(e: Event) => setQ(fieldValue(e))} placeholder="/" autocapitalize="off" spellcheck=${false} />
    </label>
    ${!commands.length && html`<p class="muted">This agent kind has no slash commands.</p>`}
    <ul class="commands">
      ${shown.map((c) => {
        const name = c.name.replace(/^\//, '')
        const text = (commandText(c).trimEnd() + (args[name]?.trim() ? ` ${args[name].trim()}` : '')).trim()
        return html`<li class="command" data-command=${name}>
          <div class="row">
            <strong>/${name}</strong> ${c.argument_hint && html`<span class="muted small">${c.argument_hint}</span>`}
            <span class="grow"></span>
            ${
              !watchOnly &&
              html`<${ActionButton}
                label="Run"
                small
                run=${async () => {
                  await api.post('/send', { pane, text: text + '\r' })
                  return `Sent ${text}`
                }}
              />`
            }
          </div>
          ${c.description && html`<p class="muted small">${c.description}</p>`}
          ${
            c.argument_hint &&
            !watchOnly &&
            html`<input
              class="cmd-args"
              aria-label=${`Arguments for /${name}`}
              placeholder=${c.argument_hint}
              value=${args[name] ?? ''}
              onInput=${(e: Event) => setArgs({ ...args, [name]: fieldValue(e) })}
            />`
          }
        </li>`
      })}
    </ul>
  </section>`
}
