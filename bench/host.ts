/**
 * Host reads, each against a floor measured in the same run:
 *   port scan:  /proc listener scan (tcp tables + every process's fd links) vs reading the tcp tables alone
 *   /commands:  claude discovery over 300 command files vs reading those files' heads raw
 *   /browse:    listing a 2000-directory folder (cut at 500) vs one readdir of it
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { procListeners } from '../lib/ports/proc.ts'
import { claudeCommands } from '../plugins/kind-claude/commands.ts'
import { readHead } from '../lib/frontmatter.ts'
import { listDirectory } from '../plugins/browse/list.ts'

async function time(n: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < Math.min(10, n); i++) await fn()
  const t = performance.now()
  for (let i = 0; i < n; i++) await fn()
  return (performance.now() - t) / n
}

const line = (what: string, ms: number, floorWhat: string, floor: number) =>
  console.log(`${what}: ${ms.toFixed(3)} ms, ${floorWhat} floor ${floor.toFixed(3)} ms → ${(ms / floor).toFixed(1)}×`)

export async function run(): Promise<void> {
  const tables = () => {
    for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
      try {
        readFileSync(f, 'utf8')
      } catch {}
    }
  }
  line('port scan (/proc)', await time(50, procListeners), 'tcp tables read', await time(50, tables))

  const root = realpathSync(mkdtempSync(join(tmpdir(), 'bench-host-')))
  try {
    const files: string[] = []
    for (let i = 0; i < 300; i++) {
      const dir = join(root, 'project/.claude/commands', `group${i % 10}`)
      mkdirSync(dir, { recursive: true })
      const f = join(dir, `cmd${i}.md`)
      writeFileSync(f, `---\ndescription: command number ${i}\nargument-hint: [x]\n---\n${'body\n'.repeat(50)}`)
      files.push(f)
    }
    line(
      '/commands discovery (300 files)',
      await time(50, () => claudeCommands(join(root, 'project'), join(root, 'nohome'))),
      'raw head reads',
      await time(50, () => files.forEach((f) => readHead(f))),
    )

    const big = join(root, 'big')
    for (let i = 0; i < 2000; i++) mkdirSync(join(big, `dir${String(i).padStart(4, '0')}`), { recursive: true })
    const roots = [{ path: root, label: '~', kind: 'home' as const }]
    line(
      '/browse listing (2000 dirs)',
      await time(50, () => listDirectory(big, roots, { hidden: false, openWorkspaces: new Map() })),
      'readdir',
      await time(50, () => readdirSync(big, { withFileTypes: true })),
    )
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run()
