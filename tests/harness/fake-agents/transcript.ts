// Writes a claude-format transcript where claude would: ~/.claude/projects/<cwd with every "/" and
// "." replaced by "-">/<session-id>.jsonl, one JSON object per line.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export function claudeProjectDir(cwd: string, home = process.env.HOME ?? os.homedir()): string {
  return path.join(home, '.claude', 'projects', cwd.replace(/[/.]/g, '-'))
}

type Block = Record<string, unknown>

export class Transcript {
  readonly file: string
  private parent: string | null = null
  private counter = 0

  constructor(
    readonly sessionId: string,
    readonly cwd: string,
    file?: string,
  ) {
    this.file = file ?? path.join(claudeProjectDir(cwd), `${sessionId}.jsonl`)
  }

  // Deterministic per session: the n-th line of a session always gets the same uuid.
  private nextUuid(): string {
    const h = createHash('sha256').update(`${this.sessionId}:${++this.counter}`).digest('hex')
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
  }

  private append(type: 'user' | 'assistant', message: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
    const uuid = this.nextUuid()
    const line = {
      parentUuid: this.parent,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: '2.1.0',
      gitBranch: '',
      type,
      message,
      uuid,
      timestamp: new Date().toISOString(),
      ...extra,
    }
    fs.mkdirSync(path.dirname(this.file), { recursive: true })
    fs.appendFileSync(this.file, `${JSON.stringify(line)}\n`)
    this.parent = uuid
    return uuid
  }

  user(text: string): void {
    this.append('user', { role: 'user', content: [{ type: 'text', text }] })
  }

  assistant(blocks: Block[]): void {
    this.append('assistant', {
      id: `msg_${this.sessionId.slice(0, 8)}_${this.counter + 1}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: blocks,
      stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    })
  }

  assistantText(text: string): void {
    this.assistant([{ type: 'text', text }])
  }

  toolUse(id: string, name: string, input: Record<string, unknown>): void {
    this.assistant([{ type: 'tool_use', id, name, input }])
  }

  /**
   * A background subagent as claude lays it out: a Task tool_use in this transcript and
   * `<session>/subagents/agent-<id>.jsonl` + `.meta.json` beside it. It stays running (no
   * completion notification is written).
   */
  subagent(toolUseId: string, agentId: string, meta: { agentType: string; description: string; prompt: string }): void {
    this.toolUse(toolUseId, 'Task', { description: meta.description, subagent_type: meta.agentType, prompt: meta.prompt, run_in_background: true })
    const dir = path.join(this.file.replace(/\.jsonl$/, ''), 'subagents')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, `agent-${agentId}.meta.json`), JSON.stringify({ toolUseId, agentType: meta.agentType, description: meta.description, spawnDepth: 1 }))
    const line = {
      parentUuid: null,
      isSidechain: true,
      agentId,
      cwd: this.cwd,
      sessionId: this.sessionId,
      type: 'user',
      message: { role: 'user', content: meta.prompt },
      uuid: `${agentId}-1`,
      timestamp: new Date().toISOString(),
    }
    fs.appendFileSync(path.join(dir, `agent-${agentId}.jsonl`), `${JSON.stringify(line)}\n`)
  }

  toolResult(toolUseId: string, output: string, isError: boolean): void {
    this.append(
      'user',
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: output, is_error: isError }] },
      { toolUseResult: isError ? `Error: ${output}` : { stdout: output, stderr: '', interrupted: false, isImage: false } },
    )
  }
}
