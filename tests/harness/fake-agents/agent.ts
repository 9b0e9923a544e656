// A scripted stand-in for a coding agent (claude by default) that runs inside a pane's PTY:
// full-screen UI on the alternate screen, a transcript JSONL where claude keeps it, status and
// session id reported over $HERDR_SOCKET_PATH like herdr's integrations, and keystroke handling.
//
//   node --import tsx tests/harness/fake-agents/agent.ts [--kind claude|pi] [--script FILE.json]
//
// The script may also come from $FAKE_AGENT_SCRIPT (a path). Format: see script.ts / README.
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { flush, send } from './report.ts'
import { banner, idlePanel, permissionOptions, permissionPanel, questionPanel, workingPanel } from './screens.ts'
import { DEFAULT_PERMISSION, DEFAULT_QUESTION, MODE_CYCLE, type AgentScript, type PermissionMode, type QuestionStep, type ToolStep, type Turn } from './script.ts'
import { Transcript } from './transcript.ts'

// --- arguments and script ---------------------------------------------------------------

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}

const kind = arg('--kind') ?? 'claude'
const scriptPath = arg('--script') ?? process.env.FAKE_AGENT_SCRIPT
const script: AgentScript = scriptPath ? (JSON.parse(fs.readFileSync(scriptPath, 'utf8')) as AgentScript) : {}
const cwd = process.env.PWD && fs.existsSync(process.env.PWD) && fs.realpathSync(process.env.PWD) === fs.realpathSync(process.cwd()) ? process.env.PWD : process.cwd()
const sessionId = script.session_id ?? randomUUID()
const workMs = script.work_ms ?? 300
const turns: Turn[] = [...(script.turns ?? [])]

// pi stores its session as a file path; claude by id under ~/.claude/projects. Other kinds keep
// theirs in a directory of their own, so no reader mistakes them for claude's.
const home = process.env.HOME ?? os.homedir()
const transcript =
  kind === 'claude'
    ? new Transcript(sessionId, cwd)
    : kind === 'pi'
      ? new Transcript(sessionId, cwd, path.join(home, '.pi', 'agent', 'sessions', cwd.replace(/[/.]/g, '-'), `${sessionId}.jsonl`))
      : new Transcript(sessionId, cwd, path.join(home, `.${kind}`, 'sessions', `${sessionId}.jsonl`))

/** What the agent calls itself in its banner and terminal title. */
const PRODUCT: Record<string, string> = { claude: 'Claude Code', pi: 'pi', codex: 'Codex', opencode: 'OpenCode' }
const product = PRODUCT[kind] ?? kind
const title = script.title ?? product

// --- screen state -----------------------------------------------------------------------

type Screen =
  | { kind: 'idle' }
  | { kind: 'working' }
  | { kind: 'permission'; tool: ToolStep; selected: number; decide: (choice: number) => void }
  | { kind: 'question'; q: QuestionStep; selected: number; decide: (choice: number | undefined) => void }

let screen: Screen = { kind: 'idle' }
let input = ''
let mode: PermissionMode = script.mode ?? 'default'
const conversation: string[] = []
let generation = 0 // bumped on interrupt so a running turn stops at its next step
let toolCounter = 0

const out = (s: string): boolean => process.stdout.write(s)

function size(): { cols: number; rows: number } {
  return { cols: process.stdout.columns || 120, rows: process.stdout.rows || 40 }
}

function panel(cols: number): string[] {
  switch (screen.kind) {
    case 'idle':
      return idlePanel(cols, input, mode)
    case 'working':
      return workingPanel(cols, input, mode)
    case 'permission':
      return permissionPanel(cols, screen.tool, screen.selected, cwd, mode)
    case 'question':
      return questionPanel(cols, screen.q, screen.selected)
  }
}

function clip(line: string, cols: number): string {
  const chars = [...line]
  return chars.length >= cols ? chars.slice(0, cols - 1).join('') : line
}

function render(): void {
  const { cols, rows } = size()
  const bottom = panel(cols)
  const top = [...banner(cwd, product), '']
  const room = Math.max(0, rows - bottom.length)
  let body = [...top, ...conversation]
  if (body.length > room) body = body.slice(body.length - room)
  while (body.length < room) body.push('')
  const lines = [...body, ...bottom].slice(-rows)
  let frame = '\x1b[H'
  lines.forEach((l, i) => {
    frame += `\x1b[2K${clip(l, cols)}${i < lines.length - 1 ? '\r\n' : ''}`
  })
  const promptRow = lines.findIndex((l) => l.startsWith('❯ '))
  if (promptRow >= 0) frame += `\x1b[${promptRow + 1};${Math.min(cols, 3 + [...input].length)}H`
  out(frame)
}

function agentState(): 'idle' | 'working' | 'blocked' {
  return screen.kind === 'working' ? 'working' : screen.kind === 'idle' ? 'idle' : 'blocked'
}

let lastReported = ''
function setScreen(next: Screen): void {
  screen = next
  // A braille spinner in the title while working, ✳ when waiting: what claude shows.
  out(`\x1b]0;${screen.kind === 'working' ? '⠐' : '✳'} ${title}\x07`)
  render()
  const state = agentState()
  if (state === lastReported) return
  lastReported = state
  const category = screen.kind === 'permission' ? (screen.tool.category ?? 'tool_approval') : screen.kind === 'question' ? (screen.q.category ?? 'question_panel') : ''
  void send('sim.agent.hint', { block_category: category })
  void report(state)
}

function report(state: string): Promise<unknown> {
  const params: Record<string, unknown> = { source: `herdr:${kind}`, agent: kind, state }
  if (kind === 'pi') params.agent_session_path = transcript.file
  else params.agent_session_id = sessionId
  return send('pane.report_agent', params)
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

// --- behaviour --------------------------------------------------------------------------

function newToolId(): string {
  return `toolu_${sessionId.replace(/-/g, '').slice(0, 12)}_${++toolCounter}`
}

function toolTitle(tool: ToolStep): string {
  const arg0 = tool.input.command ?? tool.input.file_path ?? tool.input.pattern ?? ''
  return `${tool.name}(${String(arg0)})`
}

/** Bypass mode never asks; acceptEdits does not ask for edits. */
function needsPermission(tool: ToolStep): boolean {
  if (tool.permission === false || mode === 'bypassPermissions') return false
  if (mode === 'acceptEdits' && ['Edit', 'Write', 'MultiEdit'].includes(tool.name)) return false
  return true
}

async function runTool(tool: ToolStep, gen: number): Promise<boolean> {
  const id = newToolId()
  transcript.toolUse(id, tool.name, tool.input)
  conversation.push(`⏺ ${toolTitle(tool)}`)
  if (needsPermission(tool)) {
    const choice = await new Promise<number>((decide) => setScreen({ kind: 'permission', tool, selected: 0, decide }))
    if (gen !== generation) return false
    if (choice === 2) {
      const msg =
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
      transcript.toolResult(id, msg, true)
      conversation.push('  ⎿  User rejected the tool use', '')
      setScreen({ kind: 'idle' })
      return false
    }
    setScreen({ kind: 'working' })
  }
  const output = tool.output ?? ''
  transcript.toolResult(id, output, false)
  conversation.push(`  ⎿  ${output.split('\n')[0] ?? ''}`, '')
  render()
  return true
}

async function askQuestion(q: QuestionStep, gen: number): Promise<boolean> {
  const id = newToolId()
  transcript.toolUse(id, 'AskUserQuestion', { questions: [{ question: q.question, header: q.header, options: q.options, multiSelect: false }] })
  const choice = await new Promise<number | undefined>((decide) => setScreen({ kind: 'question', q, selected: 0, decide }))
  if (gen !== generation) return false
  if (choice === undefined) {
    transcript.toolResult(id, 'User declined to answer questions', true)
    setScreen({ kind: 'idle' })
    return false
  }
  const answer = q.options[choice]?.label ?? 'Other'
  transcript.toolResult(id, `User has answered your questions: "${q.question}"="${answer}". You can now continue with the user's answers in mind.`, false)
  conversation.push(`⏺ ${q.header ?? 'Question'}: ${answer}`, '')
  setScreen({ kind: 'working' })
  return true
}

async function runTurn(turn: Turn): Promise<void> {
  const gen = ++generation
  const work = turn.work_ms ?? workMs
  setScreen({ kind: 'working' })
  await sleep(work)
  if (gen !== generation) return
  for (const tool of [...(turn.tool ? [turn.tool] : []), ...(turn.tools ?? [])]) {
    if (!(await runTool(tool, gen))) return
    await sleep(work)
    if (gen !== generation) return
  }
  if (turn.question) {
    if (!(await askQuestion(turn.question, gen))) return
    await sleep(work)
    if (gen !== generation) return
  }
  const reply = turn.reply ?? script.default_reply ?? 'OK.'
  transcript.assistantText(reply)
  conversation.push(`⏺ ${reply}`, '')
  if (script.loop && (script.turns?.length ?? 0) > 0) {
    // A long task: the next step starts at once, so the agent never goes idle.
    if (!turns.length) turns.push(...(script.turns ?? []))
    return void runTurn(turns.shift()!)
  }
  setScreen({ kind: 'idle' })
}

function submit(text: string): void {
  if (text.trim() === '/exit') return void quit()
  transcript.user(text)
  conversation.push(`> ${text}`, '')
  void runTurn(turns.shift() ?? {})
}

function interrupt(): void {
  generation++
  conversation.push('  ⎿  Interrupted by user', '')
  setScreen({ kind: 'idle' })
}

let quitting = false
async function quit(): Promise<void> {
  if (quitting) return
  quitting = true
  out('\x1b[?2004l\x1b[?1049l')
  await send('pane.release_agent', { source: `herdr:${kind}`, agent: kind })
  await flush()
  process.exit(0)
}

// --- keyboard ---------------------------------------------------------------------------

type Key = { kind: 'text'; text: string } | { kind: 'paste'; text: string } | { kind: 'key'; name: string }

let pasting: string | undefined
function tokenize(data: string): Key[] {
  const keys: Key[] = []
  let i = 0
  while (i < data.length) {
    if (pasting !== undefined) {
      const end = data.indexOf('\x1b[201~', i)
      if (end < 0) {
        pasting += data.slice(i)
        return keys
      }
      keys.push({ kind: 'paste', text: pasting + data.slice(i, end) })
      pasting = undefined
      i = end + 6
      continue
    }
    const rest = data.slice(i)
    const seqs: Array<[string, string]> = [
      ['\x1b[200~', 'paste-start'],
      ['\x1b[Z', 'shift+tab'],
      ['\x1b[A', 'up'],
      ['\x1b[B', 'down'],
      ['\x1bOA', 'up'],
      ['\x1bOB', 'down'],
      ['\x1b[C', 'right'],
      ['\x1b[D', 'left'],
      ['\x1bOC', 'right'],
      ['\x1bOD', 'left'],
    ]
    const hit = seqs.find(([s]) => rest.startsWith(s))
    if (hit) {
      if (hit[1] === 'paste-start') pasting = ''
      else keys.push({ kind: 'key', name: hit[1] })
      i += hit[0].length
      continue
    }
    const ch = data[i]
    if (ch === '\x1b') {
      // A lone ESC; an ESC-prefixed character is alt+char, which the agent ignores.
      const next = data[i + 1]
      if (next === undefined || next === '\x1b') keys.push({ kind: 'key', name: 'esc' })
      i += next === undefined || next === '\x1b' ? 1 : 2
    } else if (ch === '\r' || ch === '\n') {
      keys.push({ kind: 'key', name: 'enter' })
      i += data.startsWith('\r\n', i) ? 2 : 1
    } else if (ch === '\x7f' || ch === '\x08') {
      keys.push({ kind: 'key', name: 'backspace' })
      i++
    } else if (ch === '\x03') {
      keys.push({ kind: 'key', name: 'ctrl+c' })
      i++
    } else if (ch === '\x04') {
      keys.push({ kind: 'key', name: 'ctrl+d' })
      i++
    } else if (ch < ' ') {
      i++
    } else {
      const cp = String.fromCodePoint(data.codePointAt(i)!)
      const last = keys[keys.length - 1]
      if (last?.kind === 'text') last.text += cp
      else keys.push({ kind: 'text', text: cp })
      i += cp.length
    }
  }
  return keys
}

function cycleMode(): void {
  mode = MODE_CYCLE[(MODE_CYCLE.indexOf(mode) + 1) % MODE_CYCLE.length]
  render()
}

function handleKey(k: Key): void {
  if (k.kind === 'key' && k.name === 'shift+tab') return cycleMode()
  switch (screen.kind) {
    case 'idle':
    case 'working': {
      if (k.kind === 'text' || k.kind === 'paste') {
        input += k.text
        return render()
      }
      if (screen.kind === 'working' && (k.name === 'esc' || k.name === 'ctrl+c')) return interrupt()
      if (k.name === 'backspace') {
        input = [...input].slice(0, -1).join('')
        return render()
      }
      if (k.name === 'ctrl+c') {
        if (input !== '') {
          input = ''
          return render()
        }
        return void quit()
      }
      if (k.name === 'ctrl+d') return void quit()
      if (k.name === 'enter' && screen.kind === 'idle' && input.trim() !== '') {
        const text = input
        input = ''
        return submit(text)
      }
      return
    }
    case 'permission': {
      const count = permissionOptions(screen.tool, cwd).length
      if (k.kind === 'text' && /^[1-9]$/.test(k.text) && Number(k.text) <= count) return screen.decide(Number(k.text) - 1)
      if (k.kind !== 'key') return
      if (k.name === 'up' || k.name === 'down') {
        screen.selected = (screen.selected + (k.name === 'up' ? count - 1 : 1)) % count
        return render()
      }
      if (k.name === 'enter') return screen.decide(screen.selected)
      if (k.name === 'esc' || k.name === 'ctrl+c') return screen.decide(2)
      return
    }
    case 'question': {
      const count = screen.q.options.length + 1
      if (k.kind === 'text' && /^[1-9]$/.test(k.text) && Number(k.text) <= count) return screen.decide(Number(k.text) - 1)
      if (k.kind !== 'key') return
      if (k.name === 'up' || k.name === 'down') {
        screen.selected = (screen.selected + (k.name === 'up' ? count - 1 : 1)) % count
        return render()
      }
      if (k.name === 'enter') return screen.decide(screen.selected)
      if (k.name === 'esc' || k.name === 'ctrl+c') return screen.decide(undefined)
    }
  }
}

// --- startup ----------------------------------------------------------------------------

function startBlocked(): void {
  const gen = ++generation
  const after = async (ok: boolean): Promise<void> => {
    if (!ok || gen !== generation) return
    await sleep(workMs)
    if (gen !== generation) return
    const reply = script.default_reply ?? 'Done.'
    transcript.assistantText(reply)
    conversation.push(`⏺ ${reply}`, '')
    setScreen({ kind: 'idle' })
  }
  if (script.start === 'permission') void runTool(script.permission ?? DEFAULT_PERMISSION, gen).then(after)
  else void askQuestion(script.question ?? DEFAULT_QUESTION, gen).then(after)
}

function main(): void {
  if (process.stdin.isTTY) process.stdin.setRawMode(true)
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (d: string) => {
    for (const k of tokenize(d)) handleKey(k)
  })
  process.stdout.on('resize', () => render())
  for (const sig of ['SIGHUP', 'SIGTERM'] as const) process.on(sig, () => process.exit(0))
  // Alternate screen plus bracketed paste, as full-screen agents do.
  out('\x1b[?1049h\x1b[?2004h\x1b[2J')
  for (const m of script.history ?? []) {
    if (m.role === 'user') {
      transcript.user(m.text)
      conversation.push(`> ${m.text}`, '')
    } else {
      transcript.assistantText(m.text)
      conversation.push(`⏺ ${m.text}`, '')
    }
  }
  if (script.subagent) {
    const sub = script.subagent
    transcript.subagent(newToolId(), sub.agent_id, { agentType: sub.agent_type ?? 'general-purpose', description: sub.description, prompt: sub.prompt ?? sub.description })
    conversation.push(`⏺ Task(${sub.description})`, '  ⎿  Running in the background…', '')
  }
  if (script.start === 'permission' || script.start === 'question') {
    // Report the session first so the agent is known before it blocks.
    void report('working')
    lastReported = 'working'
    startBlocked()
  } else if (script.start === 'working') {
    void runTurn(turns.shift() ?? {})
  } else {
    setScreen({ kind: 'idle' })
  }
}

main()
