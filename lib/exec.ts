import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { HTTPError } from 'h3'

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

/** Spawn failures that mean the host is out of a resource, not that the command is wrong. */
export const RESOURCE_CODES = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM'])

/**
 * A child that could not run, or ran past its deadline; the message is one line. As an HTTP
 * answer it is a 502, or a 503 to retry later when the host is out of resources.
 */
export class ExecFailure extends HTTPError {
  constructor(
    message: string,
    public timedOut: boolean,
    public stderr = '',
    /** The errno code when the child could not be started (ENOENT, EMFILE, EAGAIN …). */
    public code?: string,
  ) {
    const busy = !!code && RESOURCE_CODES.has(code)
    super({ status: busy ? 503 : 502, message, headers: busy ? { 'retry-after': '5' } : undefined })
  }
}

/** The one-line reason a child could not start. */
export function spawnFailureText(file: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return `${file}: not found (or the directory does not exist)`
  if (err.code === 'EMFILE' || err.code === 'ENFILE') return `${file}: cannot start: the bridge is out of file descriptors (${err.code}); retry later`
  if (err.code && RESOURCE_CODES.has(err.code)) return `${file}: cannot start: the host is out of resources (${err.code}); retry later`
  return `${file}: cannot start: ${err.code ?? err.message}`
}

/**
 * `child_process.spawn` with its failure made an ordinary 'error': past the descriptor limit
 * Node returns a child without stdio and emits 'error' on the next tick, which kills the process
 * if nothing listens. The listener is attached here, before anything else can throw.
 */
export function spawnChild(file: string, args: string[], opts: SpawnOptions, onError: (err: NodeJS.ErrnoException) => void): ChildProcess {
  const child = spawn(file, args, opts)
  child.once('error', onError)
  return child
}

/**
 * Runs a process without a shell. A non-zero exit is a result, not an exception; a timeout, a
 * missing binary or a host out of descriptors throws ExecFailure. The child gets its own process
 * group, killed whole at the deadline: a grandchild (a git hook, a shell a CLI started) inherits
 * the output pipes, and killing the child alone would leave the call waiting for that grandchild.
 *
 * Node's own spawn rather than execa: execa 9 throws on a child whose stdio could not be made
 * (EMFILE) and leaves that child's 'error' unheard, which ends the daemon (fixed in execa 10,
 * which needs Node 22).
 */
export const exec: Exec = (file, args, opts = {}) =>
  new Promise((resolve, reject) => {
    const timeoutMs = opts.timeoutMs ?? 15_000
    const maxBuffer = opts.maxBuffer ?? 64 * 1024 * 1024
    let failed: ExecFailure | null = null
    let child: ChildProcess
    try {
      child = spawnChild(
        file,
        args,
        {
          cwd: opts.cwd,
          env: opts.env ?? process.env,
          detached: true,
          stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        },
        (err) => {
          failed ??= new ExecFailure(spawnFailureText(file, err), false, '', err.code)
          finish()
        },
      )
    } catch (err) {
      // Refused before starting: a NUL in an argument or the environment.
      return reject(new ExecFailure(`${file}: cannot start: ${(err as NodeJS.ErrnoException).code ?? 'invalid argument'}`, false, '', 'EINVAL'))
    }
    const out: Buffer[] = []
    const errOut: Buffer[] = []
    let outBytes = 0
    let errBytes = 0
    let exitCode: number | null = null
    let settled = false
    const timer = setTimeout(() => {
      failed ??= new ExecFailure(`${file} ${args[0] ?? ''}: timed out after ${timeoutMs} ms`, true)
      killGroup(child.pid)
    }, timeoutMs)
    function finish() {
      if (settled) return
      settled = true
      clearTimeout(timer)
      const stderr = Buffer.concat(errOut).toString('utf8')
      if (failed) return reject(Object.assign(failed, { stderr: failed.stderr || stderr }))
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr, exitCode: exitCode ?? -1 })
    }
    // Without stdio the spawn failed; the 'error' listener above reports it.
    if (!child.stdout || !child.stderr) return
    child.stdout.on('data', (d: Buffer) => {
      outBytes += d.length
      if (outBytes > maxBuffer) {
        failed ??= new ExecFailure(`${file} ${args[0] ?? ''}: output over ${maxBuffer} bytes`, false)
        return killGroup(child.pid)
      }
      out.push(d)
    })
    child.stderr.on('data', (d: Buffer) => {
      // stderr is for one-line messages; a flood of it is not kept.
      if (errBytes < 1024 * 1024) errOut.push(d)
      errBytes += d.length
    })
    child.stdout.on('error', () => {})
    child.stderr.on('error', () => {})
    if (child.stdin) {
      // The child may exit without reading its input: EPIPE is not our failure.
      child.stdin.on('error', () => {})
      child.stdin.end(opts.input)
    }
    child.once('close', (code, signal) => {
      if (code === null) failed ??= new ExecFailure(`${file} ${args[0] ?? ''}: killed by ${signal}`, false)
      exitCode = code
      finish()
    })
  })

function killGroup(pid: number | undefined): void {
  if (!pid) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // already gone
  }
}
