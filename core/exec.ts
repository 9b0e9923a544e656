import { execa } from 'execa'

export interface ExecResult {
  stdout: string
  stderr: string
  exitCode: number
}

export interface ExecOptions {
  cwd?: string
  timeoutMs?: number
  input?: string
  env?: NodeJS.ProcessEnv
  /** Max bytes of stdout kept; the process is killed past it. */
  maxBuffer?: number
}

export type Exec = (file: string, args: string[], opts?: ExecOptions) => Promise<ExecResult>

/**
 * Runs a process without a shell. A non-zero exit is a result, not an exception; a timeout or a
 * missing binary throws with a one-line message.
 */
export const exec: Exec = async (file, args, opts = {}) => {
  const r = await execa(file, args, {
    cwd: opts.cwd,
    timeout: opts.timeoutMs ?? 15_000,
    input: opts.input,
    env: opts.env,
    reject: false,
    stripFinalNewline: false,
    maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
  })
  if (r.timedOut) throw new Error(`${file} ${args[0] ?? ''}: timed out after ${opts.timeoutMs ?? 15_000} ms`)
  if (r.failed && r.exitCode === undefined) throw new Error(`${file}: ${r.originalMessage || r.shortMessage}`)
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? 1 }
}
