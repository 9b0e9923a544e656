/**
 * /agent-transcript over the real bridge with a large claude transcript (default 1 000 000 lines,
 * about 1 GB; BENCH_TRANSCRIPT_LINES scales it); the figures and floor are bench/_transcript.ts's.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { encodeCwd } from '../plugins/kind-claude/transcript/locate.ts'
import { countClaudeLine } from '../plugins/kind-claude/transcript/normalize.ts'
import { writeJsonl } from './_jsonl-file.ts'
import { benchTranscript, LINES } from './_transcript.ts'

function writeTranscript(path: string, lines: number): void {
  const pad = 'lorem ipsum dolor sit amet '.repeat(30)
  writeJsonl(path, lines, (i) => {
    const ts = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString()
    return i % 2
      ? JSON.stringify({ type: 'user', uuid: `u${i}`, parentUuid: `a${i - 1}`, timestamp: ts, message: { role: 'user', content: `prompt ${i} ${pad}` } })
      : JSON.stringify({
          type: 'assistant',
          uuid: `a${i}`,
          parentUuid: `u${i - 1}`,
          timestamp: ts,
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: `answer ${i} ${pad}` },
              { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `echo ${i}`, description: 'print' } },
            ],
          },
        })
  })
}

export function run(): Promise<void> {
  return benchTranscript({
    what: 'transcript',
    write(home, cwd) {
      const dir = join(home, '.claude', 'projects', encodeCwd(cwd))
      mkdirSync(dir, { recursive: true })
      const file = join(dir, 'big.jsonl')
      writeTranscript(file, LINES)
      return file
    },
    report: { source: 'herdr:claude', agent: 'claude', agent_session_id: 'big' },
    count: countClaudeLine,
  })
}
