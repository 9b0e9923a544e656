// Node 24 and 22 are supported; Node 20 (end of life 2026-04-30) runs with one line at start.
import { describe, expect, it } from 'vitest'
import { loadSqlite, nodeSupportWarning, SQLITE_MISSING } from '../../lib/node-support.ts'

describe('which Node the bridge runs on', () => {
  it('warns in one line on Node 20 only, naming what it lacks and how to get Node 24', () => {
    expect(nodeSupportWarning('20.19.0')).toBe(
      `Node 20.19.0 is past its end of life (2026-04-30): the bridge runs, but opencode's SQLite sessions need Node 22.5 or later; install Node 24 (see the README's "Node versions")`,
    )
    expect(nodeSupportWarning('22.12.0')).toBeUndefined()
    expect(nodeSupportWarning('24.21.0')).toBeUndefined()
  })

  it('node:sqlite is there exactly from Node 22.5', async () => {
    const [major, minor] = process.versions.node.split('.').map(Number)
    const has = major > 22 || (major === 22 && minor >= 5)
    expect((await loadSqlite()) !== undefined).toBe(has)
    expect(SQLITE_MISSING).toBe(`Node ${process.versions.node} has no built-in SQLite (node:sqlite, Node 22.5 and later)`)
  })
})
