/**
 * codex rollout lines as codex writes them (`{timestamp, type, payload}`), for tests, the
 * browser test and the benchmark.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const at = (s: number) => new Date(Date.UTC(2025, 8, 1, 10, 0, 0) + s * 1000).toISOString()
const line = (s: number, type: string, payload: unknown) => JSON.stringify({ timestamp: at(s), type, payload })

export const meta = (id: string, cwd: string, s = 0) =>
  line(s, 'session_meta', { id, timestamp: at(s), cwd, originator: 'codex_cli_rs', cli_version: '0.46.0', instructions: null, git: { branch: 'main' } })
export const userText = (s: number, text: string) => line(s, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] })
export const assistantText = (s: number, text: string) => line(s, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] })
export const environment = (s: number, cwd: string) =>
  line(s, 'response_item', {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>` }],
  })
export const developer = (s: number) => line(s, 'response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>…' }] })
export const reasoning = (s: number, summary: string) =>
  line(s, 'response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: summary }], content: null, encrypted_content: 'gAAAAB…' })
export const shellCall = (s: number, callId: string, command: string) =>
  line(s, 'response_item', {
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['bash', '-lc', command], workdir: '/w', timeout_ms: 120000 }),
    call_id: callId,
  })
export const shellOutput = (s: number, callId: string, output: string, exitCode = 0) =>
  line(s, 'response_item', { type: 'function_call_output', call_id: callId, output: JSON.stringify({ output, metadata: { exit_code: exitCode, duration_seconds: 0.1 } }) })
export const patchCall = (s: number, callId: string, file: string) =>
  line(s, 'response_item', {
    type: 'custom_tool_call',
    status: 'completed',
    call_id: callId,
    name: 'apply_patch',
    input: `*** Begin Patch\n*** Update File: ${file}\n@@\n-const ttl = 10\n+const ttl = 60\n*** End Patch\n`,
  })
export const patchOutput = (s: number, callId: string) =>
  line(s, 'response_item', {
    type: 'custom_tool_call_output',
    call_id: callId,
    output: JSON.stringify({ output: `Success. Updated the following files:\nM ${'src/cache.ts'}\n`, metadata: { exit_code: 0, duration_seconds: 0 } }),
  })
export const turnContext = (s: number, cwd: string) =>
  line(s, 'turn_context', { cwd, approval_policy: 'on-request', sandbox_policy: { mode: 'workspace-write' }, model: 'gpt-5-codex', summary: 'auto' })
export const eventUser = (s: number, text: string) => line(s, 'event_msg', { type: 'user_message', message: text, kind: 'plain' })
export const tokenCount = (s: number) => line(s, 'event_msg', { type: 'token_count', info: null })

/** `<root>/sessions/2025/09/01/rollout-2025-09-01T10-00-00-<id>.jsonl` with the given lines. */
export function writeRollout(codexHome: string, id: string, lines: string[], day = '01'): string {
  const dir = join(codexHome, 'sessions', '2025', '09', day)
  mkdirSync(dir, { recursive: true })
  const p = join(dir, `rollout-2025-09-${day}T10-00-00-${id}.jsonl`)
  writeFileSync(p, lines.join('\n') + '\n')
  return p
}

/** A short, realistic session: instructions and environment first, then one turn with tools. */
export function sampleSession(id: string, cwd: string): string[] {
  return [
    meta(id, cwd),
    developer(1),
    environment(1, cwd),
    turnContext(2, cwd),
    userText(3, 'Raise the cache TTL to a minute'),
    eventUser(3, 'Raise the cache TTL to a minute'),
    reasoning(4, '**Finding the TTL**\n\nLooking for the constant.'),
    shellCall(5, 'call_1', 'rg -n ttl src'),
    shellOutput(6, 'call_1', 'src/cache.ts:1:const ttl = 10\n'),
    patchCall(7, 'call_2', 'src/cache.ts'),
    patchOutput(8, 'call_2'),
    tokenCount(8),
    assistantText(9, 'The cache TTL is now 60 seconds.'),
  ]
}
