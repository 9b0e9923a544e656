/**
 * Parses `git status --porcelain=v2 -z --branch`: the branch headers and one entry per changed
 * path, in git's order. Paths are repository-relative and raw (-z: no quoting).
 */

export type FileStatus = 'modified' | 'added' | 'deleted' | 'renamed' | 'untracked'

export interface StatusEntry {
  path: string
  old_path?: string
  status: FileStatus
}

export interface StatusRead {
  /** Checked-out branch; '' on detached HEAD. An unborn branch still names itself. */
  branch: string
  /** No commit yet on HEAD. */
  unborn: boolean
  upstream: string
  entries: StatusEntry[]
}

export function parseStatusV2(out: string): StatusRead {
  const read: StatusRead = { branch: '', unborn: false, upstream: '', entries: [] }
  const fields = out.split('\0')
  for (let i = 0; i < fields.length; i++) {
    const rec = fields[i]
    if (!rec) continue
    switch (rec[0]) {
      case '#': {
        const [, key, ...rest] = rec.split(' ')
        const value = rest.join(' ')
        if (key === 'branch.head') read.branch = value === '(detached)' ? '' : value
        else if (key === 'branch.oid') read.unborn = value === '(initial)'
        else if (key === 'branch.upstream') read.upstream = value
        break
      }
      case '1': {
        // 1 XY sub mH mI mW hH hI path
        const path = afterFields(rec, 8)
        read.entries.push({ path, status: labelFor(rec.slice(2, 4)) })
        break
      }
      case '2': {
        // 2 XY sub mH mI mW hH hI Xscore path NUL origPath
        const path = afterFields(rec, 9)
        const old = fields[++i] ?? ''
        read.entries.push({ path, old_path: old, status: 'renamed' })
        break
      }
      case 'u': {
        // u XY sub m1 m2 m3 mW h1 h2 h3 path
        read.entries.push({ path: afterFields(rec, 10), status: labelFor(rec.slice(2, 4)) })
        break
      }
      case '?':
        read.entries.push({ path: rec.slice(2), status: 'untracked' })
        break
      default:
        break // '!' ignored entries are never requested
    }
  }
  return read
}

/**
 * Index/worktree letters → the file's `status` in /diff: a rename or copy is renamed, then anything
 * added is added, then deleted, else modified.
 */
export function labelFor(xy: string): FileStatus {
  if (xy.includes('R') || xy.includes('C')) return 'renamed'
  if (xy.includes('A')) return 'added'
  if (xy.includes('D')) return 'deleted'
  return 'modified'
}

/** The text after the first `n` space-separated fields (a path may itself contain spaces). */
function afterFields(rec: string, n: number): string {
  let at = 0
  for (let k = 0; k < n; k++) {
    at = rec.indexOf(' ', at) + 1
    if (at === 0) return ''
  }
  return rec.slice(at)
}
