/**
 * /agent-transcript over the real bridge with a large codex rollout (default 1 000 000 lines,
 * about 1 GB; BENCH_TRANSCRIPT_LINES scales it): the same figures, floor and targets as
 * bench/transcript.ts for claude (bench/_transcript.ts).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { countCodexLine } from '../plugins/kind-codex/transcript/normalize.ts'
import { writeJsonl } from './_jsonl-file.ts'
import { benchTranscript, LINES } from './_transcript.ts'

const ID = '0199c0de-0000-7000-8000-00000000b16b'

function writeRollout(path: string, cwd: string, lines: number): void {
  const pad = 'lorem ipsum dolor sit amet '.repeat(30)
  const rec = (i: number, payload: unknown) => JSON.stringify({ timestamp: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(), type: 'response_item', payload })
  const item = (i: number): string => {
    switch (i % 4) {
      case 1:
        return rec(i, { type: 'message', role: 'user', content: [{ type: 'input_text', text: `prompt ${i} ${pad}` }] })
      case 2:
        return rec(i, { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', `echo ${i} ${pad}`] }), call_id: `call_${i}` })
      case 3:
        return rec(i, {
          type: 'function_call_output',
          call_id: `call_${i - 1}`,
          output: JSON.stringify({ output: `${i} ${pad}\n`, metadata: { exit_code: 0, duration_seconds: 0 } }),
        })
      default:
        return rec(i, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${i} ${pad}` }] })
    }
  }
  // Line 1 is the session_meta record; item i is line i + 1.
  writeJsonl(path, lines, (n) =>
    n === 1 ? JSON.stringify({ timestamp: '2025-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: ID, cwd, cli_version: '0.46.0' } }) : item(n - 1),
  )
}

export function run(): Promise<void> {
  return benchTranscript({
    what: 'codex rollout',
    write(home, cwd) {
      const dir = join(home, '.codex', 'sessions', '2025', '01', '01')
      mkdirSync(dir, { recursive: true })
      const file = join(dir, `rollout-2025-01-01T00-00-00-${ID}.jsonl`)
      writeRollout(file, cwd, LINES)
      return file
    },
    report: { source: 'herdr:codex', agent: 'codex', agent_session_id: ID },
    count: countCodexLine,
  })
}
