import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { countClaudeLine, normalizeClaudeLine } from '../../plugins/kind-claude/transcript/normalize.ts'

const fixture = readFileSync(join(import.meta.dirname, 'fixtures', 'claude-kinds.jsonl'), 'utf8').split('\n')

const text = fc.oneof(fc.constant(''), fc.constant('   '), fc.string({ maxLength: 20 }), fc.integer())
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('thinking'), thinking: text }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('redacted_thinking') }),
  fc.record({
    type: fc.constant('tool_use'),
    id: fc.string(),
    name: fc.constantFrom('Bash', 'Edit', 'Write', 'Read', 'Grep'),
    input: fc.dictionary(fc.constantFrom('command', 'file_path', 'old_string', 'new_string', 'content'), text),
  }),
  fc.record(
    { type: fc.constant('tool_result'), tool_use_id: fc.string(), content: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }))), is_error: fc.boolean() },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('image') }),
  fc.string(),
  fc.constant(null),
  fc.record({ type: fc.string({ maxLength: 6 }) }),
)
const content = fc.oneof(text, fc.array(block, { maxLength: 5 }), fc.constant(null))
const line = fc.oneof(
  fc
    .record(
      {
        type: fc.constantFrom('user', 'assistant', 'system', 'queue-operation', 'summary', 'attachment', 'progress', 'x'),
        uuid: fc.string({ maxLength: 8 }),
        operation: fc.constantFrom('remove', 'enqueue'),
        content: fc.oneof(text, content),
        message: fc.oneof(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content }, { requiredKeys: [] }), fc.string(), fc.constant(null)),
        toolUseResult: fc.oneof(fc.string(), fc.record({ stdout: fc.string(), stderr: fc.string(), interrupted: fc.boolean() }, { requiredKeys: [] })),
      },
      { requiredKeys: ['type'] },
    )
    .map((o) => JSON.stringify(o)),
  fc.string(),
  fc.json(),
)

describe('countClaudeLine', () => {
  it('counts exactly what normalize yields, on every fixture line', () => {
    for (const l of fixture) expect([l, countClaudeLine(l)]).toEqual([l, normalizeClaudeLine(l).length])
  })

  it('counts exactly what normalize yields, on arbitrary claude-shaped lines (property)', () => {
    fc.assert(
      fc.property(line, (l) => {
        expect(countClaudeLine(l)).toBe(normalizeClaudeLine(l).length)
      }),
      { numRuns: 2000 },
    )
  })
})
