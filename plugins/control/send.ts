import { toHerdrKey } from '../../core/herdr/keys.ts'

/** One herdr call of a /send. */
export type SendStep = { method: 'pane.send_text'; params: { text: string } } | { method: 'pane.send_keys'; params: { keys: string[] } }

/** Longest `text` typed in one request; herdr reads at most 1 MiB per request line. */
export const MAX_SEND_TEXT = 256 * 1024

/**
 * What `/send {text}` or `/send {key}` does, as herdr calls, or the 400/413 reason. Exactly one of them. Text ending in CR or LF is a submit: the body is typed, then Enter is pressed as its own
 * key, because inside a bracketed paste a typed CR is a newline, not a submit. `"\r"` alone is a
 * bare Enter.
 */
export function planSend(input: { text?: string; key?: string }): { steps: SendStep[] } | { status: 400 | 413; error: string } {
  // Both at once is ambiguous (type then press? press then type?): refused, nothing sent.
  if (input.key && input.text) return { status: 400, error: 'want {pane, text} or {pane, key}, not both' }
  if (input.key !== undefined && input.key !== '') {
    const key = toHerdrKey(input.key)
    if (!key) return { status: 400, error: `unknown key: ${JSON.stringify(input.key)}` }
    return { steps: [{ method: 'pane.send_keys', params: { keys: [key] } }] }
  }
  const text = input.text
  if (text === undefined || text === '') return { status: 400, error: 'want {pane, text} or {pane, key}' }
  if (Buffer.byteLength(text) > MAX_SEND_TEXT) return { status: 413, error: `text over ${MAX_SEND_TEXT} bytes` }
  const body = text.replace(/[\r\n]+$/, '')
  const submit = body.length !== text.length
  const steps: SendStep[] = []
  if (body) steps.push({ method: 'pane.send_text', params: { text: body } })
  if (submit) steps.push({ method: 'pane.send_keys', params: { keys: ['enter'] } })
  return { steps }
}
