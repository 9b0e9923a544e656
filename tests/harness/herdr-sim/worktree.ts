// Real `git` calls behind worktree.* and workspace provenance.
import { execFile, execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'

const execFileAsync = promisify(execFile)

/** WorkspaceWorktreeInfo. */
export interface GitProvenance {
  repo_key: string
  repo_name: string
  repo_root: string
  checkout_path: string
  is_linked_worktree: boolean
}

export interface WorktreeEntry {
  path: string
  branch?: string
  is_bare: boolean
  is_detached: boolean
  is_prunable: boolean
  is_linked_worktree: boolean
}

function parseRevParse(out: string, dir: string): GitProvenance | undefined {
  const [toplevel, commonDir] = out.trim().split('\n')
  if (!toplevel || !commonDir) return undefined
  const common = fs.realpathSync(path.resolve(dir, commonDir))
  const repoRoot = path.basename(common) === '.git' ? path.dirname(common) : common
  const checkout = fs.realpathSync(toplevel)
  return {
    repo_key: common,
    repo_name: path.basename(repoRoot),
    repo_root: repoRoot,
    checkout_path: checkout,
    is_linked_worktree: checkout !== repoRoot,
  }
}

const REV_PARSE = ['rev-parse', '--show-toplevel', '--git-common-dir']

/** Provenance for a directory, or undefined when it is not inside a git checkout. */
export function provenanceSync(dir: string): GitProvenance | undefined {
  try {
    const out = execFileSync('git', ['-C', dir, ...REV_PARSE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 })
    return parseRevParse(out, dir)
  } catch {
    return undefined
  }
}

export async function provenance(dir: string): Promise<GitProvenance | undefined> {
  try {
    const { stdout } = await execFileAsync('git', ['-C', dir, ...REV_PARSE], { encoding: 'utf8', timeout: 10000 })
    return parseRevParse(stdout, dir)
  } catch {
    return undefined
  }
}

export async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', ['-C', cwd, ...args], { encoding: 'utf8', timeout: 60000 })
  return stdout
}

export async function listWorktrees(repoRoot: string): Promise<WorktreeEntry[]> {
  const out = await git(repoRoot, ['worktree', 'list', '--porcelain'])
  const entries: WorktreeEntry[] = []
  let cur: WorktreeEntry | undefined
  for (const line of out.split('\n')) {
    if (line.startsWith('worktree ')) {
      cur = { path: realpathOr(line.slice(9)), is_bare: false, is_detached: false, is_prunable: false, is_linked_worktree: entries.length > 0 }
      entries.push(cur)
    } else if (!cur) {
      continue
    } else if (line.startsWith('branch ')) {
      cur.branch = line.slice(7).replace(/^refs\/heads\//, '')
    } else if (line === 'bare') {
      cur.is_bare = true
    } else if (line === 'detached') {
      cur.is_detached = true
    } else if (line.startsWith('prunable')) {
      cur.is_prunable = true
    }
  }
  return entries
}

export async function branchExists(repoRoot: string, branch: string): Promise<boolean> {
  try {
    await git(repoRoot, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])
    return true
  } catch {
    return false
  }
}

export async function isDirty(checkout: string): Promise<boolean> {
  const out = await git(checkout, ['status', '--porcelain'])
  return out.trim().length > 0
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}

/** herdr names auto-created branches with a short slug; keep it deterministic per counter. */
export function autoBranchName(counter: number): string {
  return `herdr-worktree-${counter}`
}
