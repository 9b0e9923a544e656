import { realpathSync } from 'node:fs'
import { dirname, sep, basename } from 'node:path'

export interface BrowseRoot {
  path: string
  label: string
  kind: 'home' | 'project'
}

/** `child` is `parent` or lies under it (both absolute, already resolved). */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true
  const p = parent.endsWith(sep) ? parent : parent + sep
  return child.startsWith(p)
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p)
  } catch {
    return undefined
  }
}

/**
 * The roots /browse is confined to: home plus the parent of every directory where a space is
 * open, minus `/` and any ancestor of home, each resolved through symlinks, and roots nested in
 * another root dropped.
 */
export function deriveRoots(home: string, spaceDirs: string[]): BrowseRoot[] {
  const realHome = real(home)
  const roots: BrowseRoot[] = []
  if (realHome) roots.push({ path: realHome, label: '~', kind: 'home' })
  const seen = new Set<string>()
  for (const dir of spaceDirs) {
    if (!dir || !dir.startsWith('/')) continue
    const parent = real(dirname(real(dir) ?? dir))
    if (!parent || parent === '/' || seen.has(parent)) continue
    seen.add(parent)
    if (realHome && isInside(realHome, parent)) continue // an ancestor of home (or home itself)
    roots.push({ path: parent, label: basename(parent), kind: 'project' })
  }
  // Collapse: a root inside another root adds nothing.
  return roots.filter((r, i) => !roots.some((o, j) => j !== i && o.path !== r.path && isInside(r.path, o.path)))
}

export function rootOf(path: string, roots: BrowseRoot[]): BrowseRoot | undefined {
  return roots.find((r) => isInside(path, r.path))
}
