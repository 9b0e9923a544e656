/**
 * The one way the bridge runs git for reads and branch deletion (/diff, /diff/expand,
 * /suggestions, /branch-*).
 *
 *   runGit(cwd, args, opts?) → {stdout, stderr, exitCode}   never throws on a non-zero exit
 *   gitOk(cwd, args, opts?)  → stdout                        throws GitFailure on a non-zero exit
 *
 * Every call: 15 s deadline (BRIDGE_GIT_TIMEOUT_MS in the bridge's env overrides it; a hung git
 * — an fsmonitor hook, a stuck network filesystem — is killed then), no shell, GIT_OPTIONAL_LOCKS=0 (a read never takes index.lock from
 * under the agent), no pager, no colour, no prompts, hooks off (core.hooksPath=/dev/null), paths
 * printed raw (core.quotePath=false). Callers put `--` before paths and use --no-ext-diff and
 * --no-textconv on diff commands; options are never built from client input.
 */
import { exec, ExecFailure } from '../exec.ts'

export const GIT_TIMEOUT_MS = 15_000

/** The deadline for git in this environment: BRIDGE_GIT_TIMEOUT_MS when it is a positive number. */
export function gitTimeoutMs(env: NodeJS.ProcessEnv | undefined): number {
  const n = Number(env?.BRIDGE_GIT_TIMEOUT_MS)
  return Number.isFinite(n) && n > 0 ? n : GIT_TIMEOUT_MS
}

export interface GitResult {
  stdout: string
  stderr: string
  exitCode: number
}

export interface GitOptions {
  /** The bridge's environment (ctx.env); HOME decides which global git config applies. */
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
  input?: string
}

const CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.quotePath=false', '-c', 'color.ui=false', '-c', 'core.pager=cat']

/** A git invocation that failed outright; `message` is `git <sub> ...: <stderr>`. */
export class GitFailure extends Error {
  constructor(
    message: string,
    public result: GitResult,
    /** errno code when git could not be started (EMFILE …), so the answer can be 503. */
    public code?: string,
  ) {
    super(message)
  }
}

export async function runGit(cwd: string, args: string[], opts: GitOptions = {}): Promise<GitResult> {
  const base = opts.env ?? process.env
  const timeout = opts.timeoutMs ?? gitTimeoutMs(base)
  const env: NodeJS.ProcessEnv = {
    ...base,
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
  }
  delete env.GIT_DIR
  delete env.GIT_WORK_TREE
  delete env.GIT_INDEX_FILE
  delete env.GIT_EXTERNAL_DIFF
  try {
    return await exec('git', ['--no-pager', ...CONFIG, ...args], { cwd, env, timeoutMs: timeout, input: opts.input, maxBuffer: 256 * 1024 * 1024 })
  } catch (err) {
    if (!(err instanceof ExecFailure)) throw err
    if (err.timedOut) throw new GitFailure(`git ${args[0]} ...: timed out after ${timeout} ms`, { stdout: '', stderr: 'timed out', exitCode: -1 })
    const why = oneLine(err.stderr) || (err.message.includes('not found') ? 'cannot run git (missing, or the directory does not exist)' : err.message)
    throw new GitFailure(`git ${args[0]} ...: ${why}`, { stdout: '', stderr: err.stderr, exitCode: -1 }, err.code)
  }
}

export async function gitOk(cwd: string, args: string[], opts: GitOptions = {}): Promise<string> {
  const r = await runGit(cwd, args, opts)
  if (r.exitCode !== 0) throw new GitFailure(`git ${args[0]} ...: ${oneLine(r.stderr) || `exit ${r.exitCode}`}`, r)
  return r.stdout
}

/** git's stderr as one line (it often prints `fatal: …` followed by hints). */
export function oneLine(stderr: string): string {
  return stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('hint:'))
    .join('; ')
}

export function isNotARepo(stderr: string): boolean {
  return /not a git repository/i.test(stderr)
}
