import type { ConsolaInstance } from 'consola'
import type { Exec } from './exec.ts'

/**
 * What an agent kind's readers (commands, usage, a question service) may read of the running
 * bridge. A plugin's context has all of it, so the capability plugins pass theirs; a kind never
 * sees the herdr client, the bus or storage.
 */
export interface KindContext {
  /** The bridge's HOME and environment (tests give the bridge its own): read these, not process.env. */
  home: string
  env: NodeJS.ProcessEnv
  /** Wall clock, injectable in tests. */
  now: () => number
  log: ConsolaInstance
  /** Runs a program with a timeout (lib/exec.ts). */
  exec: Exec
}
