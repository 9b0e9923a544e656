import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseFrontmatter, readHead, type SlashCommand } from '../../lib/kit.ts'

export type Command = SlashCommand

/** Most entries returned; the walk below `commands/` goes at most this many directories deep. */
export const MAX_COMMANDS = 500
const MAX_DEPTH = 3
/** Files read per root at most; a runaway tree cannot make a request slow. */
const MAX_FILES_PER_ROOT = 1000

/** Claude Code's own slash commands (maintained by hand; no scope). */
export const CLAUDE_BUILTINS: Command[] = [
  ['clear', 'Clear the conversation history and free up context'],
  ['compact', 'Clear history but keep a summary in context', '[instructions]'],
  ['context', 'Show current context usage'],
  ['cost', 'Show the total cost and duration of the session'],
  ['model', 'Set the AI model', '[model]'],
  ['status', 'Show version, model, account and connectivity'],
  ['usage', 'Show plan usage limits'],
  ['resume', 'Resume a previous conversation'],
  ['rewind', 'Restore the code and/or conversation to an earlier point'],
  ['todos', 'List the current todo items'],
  ['agents', 'Manage agent configurations'],
  ['memory', 'Edit Claude memory files'],
  ['permissions', 'Manage allow and deny tool permission rules'],
  ['hooks', 'Manage hook configurations for tool events'],
  ['mcp', 'Manage MCP servers'],
  ['config', 'Open the settings panel'],
  ['init', 'Initialize a CLAUDE.md file with codebase documentation'],
  ['review', 'Review a pull request', '[pr]'],
  ['export', 'Export the conversation to a file or the clipboard'],
  ['help', 'Show help and available commands'],
].map(([name, description, hint]) => ({ name, description, ...(hint ? { argument_hint: hint } : {}), source: 'builtin' as const }))

function entry(name: string, fm: Record<string, string>, source: 'command' | 'skill', scope: 'user' | 'project'): Command {
  const c: Command = { name, description: fm.description ?? '', source, scope }
  if (fm['argument-hint']) c.argument_hint = fm['argument-hint']
  return c
}

/** `<root>/**\/*.md` (case-insensitive, ≤ 3 levels); `a/b.md` → `a:b`. */
function readCommands(root: string, scope: 'user' | 'project'): Command[] {
  const out: Command[] = []
  const walk = (dir: string, prefix: string[], depth: number) => {
    let names: import('node:fs').Dirent[]
    try {
      names = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const d of names) {
      if (out.length >= MAX_FILES_PER_ROOT) return
      const p = join(dir, d.name)
      let isDir = d.isDirectory()
      let isFile = d.isFile()
      if (d.isSymbolicLink()) {
        try {
          const st = statSync(p)
          isDir = st.isDirectory()
          isFile = st.isFile()
        } catch {
          continue
        }
      }
      if (isDir) {
        if (depth < MAX_DEPTH - 1) walk(p, [...prefix, d.name], depth + 1)
      } else if (isFile && /\.md$/i.test(d.name)) {
        out.push(entry([...prefix, d.name.slice(0, -3)].join(':'), parseFrontmatter(readHead(p)), 'command', scope))
      }
    }
  }
  walk(root, [], 0)
  return out
}

/** Each direct subdirectory of `<root>` holding a `SKILL.md`; name from frontmatter, else the dir. */
function readSkills(root: string, scope: 'user' | 'project'): Command[] {
  const out: Command[] = []
  let names: string[]
  try {
    names = readdirSync(root)
  } catch {
    return out
  }
  for (const n of names.slice(0, MAX_FILES_PER_ROOT)) {
    const file = join(root, n, 'SKILL.md')
    try {
      if (!statSync(file).isFile()) continue
    } catch {
      continue
    }
    const fm = parseFrontmatter(readHead(file))
    out.push(entry(fm.name || n, fm, 'skill', scope))
  }
  return out
}

const SCOPE_ORDER = { project: 0, user: 1, builtin: 2 }
const SOURCE_ORDER = { command: 0, skill: 1, builtin: 2 }

/**
 * Claude's slash commands for a pane working in `cwd`: project commands and skills, then the
 * user's, then the built-ins; de-duplicated on (source, scope, name), read from disk every call.
 */
export function claudeCommands(cwd: string | undefined, home: string): Command[] {
  const found: Command[] = []
  // A pane working in home itself has no separate project scope.
  if (cwd && cwd !== home) found.push(...readCommands(join(cwd, '.claude/commands'), 'project'), ...readSkills(join(cwd, '.claude/skills'), 'project'))
  if (home) found.push(...readCommands(join(home, '.claude/commands'), 'user'), ...readSkills(join(home, '.claude/skills'), 'user'))
  found.push(...CLAUDE_BUILTINS)
  const seen = new Set<string>()
  const unique = found.filter((c) => {
    const key = `${c.source}\0${c.scope ?? ''}\0${c.name}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const rank = (c: Command) => SCOPE_ORDER[c.scope ?? 'builtin']
  unique.sort((a, b) => rank(a) - rank(b) || SOURCE_ORDER[a.source] - SOURCE_ORDER[b.source] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return unique.slice(0, MAX_COMMANDS)
}
