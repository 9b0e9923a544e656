import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import type { Sim } from '../harness/sim.ts'
import { until } from '../harness/wait.ts'

/** Runs git with a fixed identity, so repos build the same on any machine. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' }).toString()
}

/** A repository with one commit, on `branch`. */
export function makeRepo(dir: string, branch = 'main'): string {
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', branch)
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'first')
  return dir
}

/** The pane's visible screen, as lines with trailing spaces trimmed. */
export async function screen(sim: Sim, session: string, pane: string): Promise<string[]> {
  const r = await sim.request('pane.read', { pane_id: pane, source: 'visible', format: 'text' }, session)
  return (r.read.text as string).split('\n').map((l) => l.trimEnd())
}

/** Polls the screen (every 100 ms: each read is a simulator round trip) until `pred` holds; fails with the last screen. */
export async function waitScreen(sim: Sim, session: string, pane: string, pred: (lines: string[]) => boolean): Promise<string[]> {
  let last: string[] = []
  return until(
    async () => {
      last = await screen(sim, session, pane)
      return pred(last) ? last : undefined
    },
    () => `the screen of ${session}/${pane} to match; last screen:\n${last.join('\n')}`,
    20_000,
    100,
  )
}

/** Waits until the shell in the pane shows a prompt, so typed input is not lost to start-up. */
export async function shellReady(sim: Sim, session: string, pane: string): Promise<void> {
  await sim.request('pane.send_text', { pane_id: pane, text: 'echo READY$((40+2))\r' }, session)
  await waitScreen(sim, session, pane, (l) => l.includes('READY42'))
}

export const count = (lines: string[], line: string) => lines.filter((l) => l === line).length
