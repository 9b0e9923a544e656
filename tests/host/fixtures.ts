import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

export const put = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

/** A temp project and HOME with nested commands, skills and frontmatter edge cases. */
export function makeCommandTree(root: string): { project: string; home: string } {
  const project = join(root, 'project')
  const home = join(root, 'home')
  put(join(project, '.claude/commands/deploy.md'), '---\ndescription: "Ship it"\nargument-hint: [env]\n---\nbody')
  put(join(project, '.claude/commands/frontend/component.MD'), '\n\n---\nDescription:   Make   a\tcomponent  \n  indented: ignored\n# comment: ignored\n---\n')
  put(join(project, '.claude/commands/a/b/too-deep.md'), '---\ndescription: deep\n---\n')
  put(join(project, '.claude/commands/notes.txt'), 'not a command')
  put(join(project, '.claude/commands/plain.md'), 'no frontmatter at all\n---\ndescription: no\n---\n')
  put(join(project, '.claude/skills/pdf/SKILL.md'), "---\nname: pdf-tools\ndescription: 'Read PDFs'\n---\n")
  put(join(project, '.claude/skills/empty-dir/readme.md'), 'no SKILL.md here')
  put(join(home, '.claude/commands/deploy.md'), '---\ndescription: user deploy\n---\n')
  put(join(home, '.claude/skills/notes/SKILL.md'), '---\ndescription: Take notes\nname:\n---\n')
  return { project, home }
}
