/**
 * The card's headline, detail and recent lines from the agent's own transcript (the conversation
 * is read from the transcript, the blocked prompt from the screen: a prompt is UI). Only the
 * file's last 64 KiB is read.
 */
import type { Summary } from '../card.ts'
import { readTailLines } from './activity.ts'
import { oneLine, type RawEntry } from './entry.ts'

const HEADLINE_CAP = 120
const DETAIL_CAP = 1_000
const LINES = 12

export async function summarizeTail(path: string, normalize: (line: string) => RawEntry[]): Promise<Summary | undefined> {
  const lines = await readTailLines(path)
  if (!lines) return undefined
  const entries = lines.flatMap((l) => {
    try {
      return normalize(l)
    } catch {
      return []
    }
  })
  return summarizeEntries(entries)
}

/** Pure: the newest assistant prose is the headline; a tool call after it is the current step. */
export function summarizeEntries(entries: RawEntry[]): Summary | undefined {
  let prose: RawEntry | undefined
  let stepAfter: RawEntry | undefined
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]
    if (e.role === 'assistant' && e.kind === 'message' && e.text?.trim()) {
      prose = e
      break
    }
    if (!stepAfter && e.kind === 'tool_call') stepAfter = e
  }
  if (!prose && !stepAfter) return undefined
  const step = stepAfter?.tool ? [stepAfter.tool.name, stepAfter.tool.command ?? stepAfter.tool.input_summary ?? stepAfter.tool.file].filter(Boolean).join(': ') : ''
  const text = prose?.text?.trim() ?? ''
  const headline = oneLine(text.split('\n').find((l) => l.trim()) ?? step, HEADLINE_CAP)
  const detail = step ? oneLine(step, DETAIL_CAP) : text.length > DETAIL_CAP ? text.slice(0, DETAIL_CAP - 1) + '…' : text
  const transcript = entries
    .filter((e) => e.kind === 'message' && e.text?.trim() && e.role !== 'system')
    .slice(-LINES)
    .map((e) => oneLine(`${e.role === 'user' ? '> ' : ''}${e.text!.trim().split('\n')[0]}`, 200))
  return { headline, detail, ...(transcript.length ? { transcript } : {}) }
}
