import { describe, expect, it } from 'vitest'
import { summarizeEntries } from '../../lib/transcript/summary.ts'
import type { RawEntry } from '../../lib/transcript/entry.ts'

const msg = (role: RawEntry['role'], text: string): RawEntry => ({ id: '', role, kind: 'message', text, parsed: true })
const call = (name: string, command: string): RawEntry => ({ id: '', role: 'assistant', kind: 'tool_call', tool: { id: 't', name, command }, parsed: true })

describe('card summary from the transcript', () => {
  it('takes the newest assistant prose as headline and detail', () => {
    const s = summarizeEntries([msg('user', 'fix the tests'), msg('assistant', 'All 12 tests pass now.\nI changed two files.')])
    expect(s).toEqual({ headline: 'All 12 tests pass now.', detail: 'All 12 tests pass now.\nI changed two files.', transcript: ['> fix the tests', 'All 12 tests pass now.'] })
  })

  it('shows the current tool step when tool calls follow the last prose', () => {
    const s = summarizeEntries([msg('assistant', 'Running the suite.'), call('Bash', 'npm test')])
    expect(s?.headline).toBe('Running the suite.')
    expect(s?.detail).toBe('Bash: npm test')
  })

  it('has nothing to say for an empty or user-only transcript', () => {
    expect(summarizeEntries([])).toBeUndefined()
    expect(summarizeEntries([msg('user', 'hello')])).toBeUndefined()
  })
})
