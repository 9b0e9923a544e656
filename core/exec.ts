
export interface ExecResult {
  stdout: string
  stderr: string
  exitCode: number
}

export interface ExecOptions {
  cwd?: string
  timeoutMs?: number
  input?: string
  /** The whole environment of the child (not merged with process.env). */
  env?: NodeJS.ProcessEnv
  /** Max bytes of stdout kept; the process is killed past it. */
  maxBuffer?: number
}

export type Exec = (file: string, args: string[], opts?: ExecOptions) => Promise<ExecResult>

/** A child that could not run, or ran past its deadline; the message is one line. */
export class ExecFailure extends Error {
  constructor(
    message: string,
    public timedOut: boolean,
    public stderr = '',
  ) {
    super(message)
  }
}

/**
 * Runs a process without a shell. A non-zero exit is a result, not an exception; a timeout or a
 * missing binary throws ExecFailure. The child gets its own process group, killed whole at the
 * deadline: a grandchild (a git hook, a shell a CLI started) inherits the output pipes, and
 * killing the child alone would leave the call waiting for that grandchild.
 */
export const exec: Exec = async (file, args, opts = {}) => {
  const timeoutMs = opts.timeoutMs ?? 15_000
  // Loaded on first use: execa and its dependencies are a noticeable part of idle memory.
  const { execa } = await import('execa')
  const sub = execa(file, args, {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: !opts.env,
    detached: true,
    input: opts.input,
    stdin: opts.input === undefined ? 'ignore' : undefined,
    reject: false,
    stripFinalNewline: false,
    maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
  })
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    killGroup(sub.pid)
  }, timeoutMs)
  let r: Awaited<typeof sub>
  try {
    r = await sub
  } finally {
    clearTimeout(timer)
  }
  if (timedOut) throw new ExecFailure(`${file} ${args[0] ?? ''}: timed out after ${timeoutMs} ms`, true)
  if (r.exitCode === undefined) {
    const code = (r as { code?: string }).code
    throw new ExecFailure(`${file}: ${code === 'ENOENT' ? 'not found (or the directory does not exist)' : r.shortMessage}`, false, String(r.stderr ?? ''))
  }
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode }
}

function killGroup(pid: number | undefined): void {
  if (!pid) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // already gone
  }
}
