// Renders the fake agent's screens from the fixture templates in fixtures/<kind>/.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PermissionMode, QuestionStep, ToolStep } from './script.ts'

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'claude')
const cache = new Map<string, string>()

function template(name: string): string {
  let t = cache.get(name)
  if (t === undefined) {
    t = fs.readFileSync(path.join(FIXTURES, `${name}.txt`), 'utf8').replace(/\n$/, '')
    cache.set(name, t)
  }
  return t
}

function fill(name: string, vars: Record<string, string>): string[] {
  return template(name)
    .replace(/\{\{(\w+)\}\}/g, (_m, key: string) => vars[key] ?? '')
    .split('\n')
}

export function modeLine(mode: PermissionMode): string {
  switch (mode) {
    case 'acceptEdits':
      return '⏵⏵ accept edits on (shift+tab to cycle)'
    case 'plan':
      return '⏸ plan mode on (shift+tab to cycle)'
    case 'bypassPermissions':
      return '⏵⏵ bypass permissions on (shift+tab to cycle)'
    default:
      return '? for shortcuts'
  }
}

export function rule(cols: number): string {
  return '─'.repeat(Math.max(6, cols - 1))
}

export function banner(cwd: string, product = 'Claude Code'): string[] {
  // The box keeps its width whatever the product's name.
  const welcome = `✻ Welcome to ${product}!`
  return fill('banner', { cwd, welcome: welcome.padEnd(49) })
}

export function idlePanel(cols: number, input: string, mode: PermissionMode): string[] {
  return fill('idle', { rule: rule(cols), input, mode_line: modeLine(mode) })
}

export function workingPanel(cols: number, input: string, mode: PermissionMode): string[] {
  return fill('working', { rule: rule(cols), input, verb: 'Working', mode_line: modeLine(mode) })
}

export function permissionOptions(tool: ToolStep, cwd: string): string[] {
  const prefix = String(tool.input.command ?? tool.name).split(' ')[0]
  return [
    'Yes',
    tool.name === 'Bash' ? `Yes, and don't ask again for ${prefix} commands in ${cwd}` : 'Yes, allow all edits during this session (shift+tab)',
    'No, and tell Claude what to do differently (esc)',
  ]
}

export function permissionPanel(cols: number, tool: ToolStep, selected: number, cwd: string, mode: PermissionMode): string[] {
  const title = tool.name === 'Bash' ? 'Bash command' : tool.name === 'Edit' || tool.name === 'Write' ? 'Edit file' : `${tool.name} tool`
  const body =
    tool.name === 'Bash'
      ? [`   ${String(tool.input.command ?? '')}`, `   ${String(tool.input.description ?? '')}`]
      : [`   ${String(tool.input.file_path ?? JSON.stringify(tool.input))}`]
  const options = permissionOptions(tool, cwd).map((o, i) => `${i === selected ? ' ❯' : '  '} ${i + 1}. ${o}`)
  return fill('permission', {
    rule: rule(cols),
    title,
    body: body.join('\n'),
    question: tool.question ?? 'Do you want to proceed?',
    options: options.join('\n'),
    mode_line: modeLine(mode),
  })
}

export function questionPanel(cols: number, q: QuestionStep, selected: number): string[] {
  const options: string[] = []
  const all = [...q.options, { label: 'Type something.' }]
  all.forEach((o, i) => {
    options.push(`${i === selected ? ' ❯' : '  '} ${i + 1}. ${o.label}`)
    if ('description' in o && o.description) options.push(`      ${o.description}`)
  })
  return fill('question', { rule: rule(cols), header: q.header ?? 'Question', question: q.question, options: options.join('\n') })
}
