import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { claudeCommands, CLAUDE_BUILTINS } from '../../plugins/kind-claude/commands.ts'
import { parseFrontmatter } from '../../lib/frontmatter.ts'
import { makeCommandTree, put } from './fixtures.ts'

describe('claude command discovery', () => {
  let root: string
  let tree: { project: string; home: string }
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'cmds-'))
    tree = makeCommandTree(root)
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('orders project, user, built-in; commands before skills; names from paths and frontmatter', () => {
    const list = claudeCommands(tree.project, tree.home)
    expect(list.slice(0, 7)).toEqual([
      { name: 'a:b:too-deep', description: 'deep', source: 'command', scope: 'project' },
      { name: 'deploy', description: 'Ship it', argument_hint: '[env]', source: 'command', scope: 'project' },
      { name: 'frontend:component', description: 'Make a component', source: 'command', scope: 'project' },
      { name: 'plain', description: '', source: 'command', scope: 'project' },
      { name: 'pdf-tools', description: 'Read PDFs', source: 'skill', scope: 'project' },
      { name: 'deploy', description: 'user deploy', source: 'command', scope: 'user' },
      { name: 'notes', description: 'Take notes', source: 'skill', scope: 'user' },
    ])
    const builtins = list.slice(7)
    expect(builtins.length).toBe(CLAUDE_BUILTINS.length)
    expect(builtins.every((c) => c.source === 'builtin' && !('scope' in c))).toBe(true)
    expect(builtins.find((c) => c.name === 'compact')).toMatchObject({ argument_hint: '[instructions]' })
  })

  it('stops three levels deep and tolerates missing roots', () => {
    put(join(tree.project, '.claude/commands/a/b/c/deeper.md'), '---\ndescription: x\n---\n')
    expect(claudeCommands(tree.project, tree.home).some((c) => c.name.includes('deeper'))).toBe(false)
    expect(claudeCommands(join(root, 'missing'), join(root, 'missing-home'))).toEqual([...CLAUDE_BUILTINS].sort((a, b) => (a.name < b.name ? -1 : 1)))
  })

  it('parses frontmatter by the documented rules', () => {
    expect(parseFrontmatter('---\nKey: "quoted"\nother: \'x\'\nmixed: "no\'\nempty:\n---\nafter: no')).toEqual({ key: 'quoted', other: 'x', mixed: '"no\'' })
    expect(parseFrontmatter('text\n---\na: b\n---')).toEqual({})
  })
})
