/**
 * Which Node the bridge runs on. Node 24 and 22 are the supported lines (README, "Node versions");
 * Node 20 reached end of life on 2026-04-30 and still runs the bridge, with one line at start
 * saying so and what it lacks: `node:sqlite` (Node 22.5+), which opencode's SQLite sessions need.
 */

/** What the bridge uses of `node:sqlite` (typed here: the project's Node 20 types do not have it). */
export interface SqliteStatement {
  all(...params: unknown[]): Record<string, unknown>[]
  get(...params: unknown[]): Record<string, unknown> | undefined
}
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement
  exec(sql: string): void
  close(): void
}
export interface SqliteModule {
  DatabaseSync: new (path: string, opts?: { readOnly?: boolean; timeout?: number }) => SqliteDatabase
}

/** The runtime's built-in SQLite, or undefined where it has none (Node 20, Node 22 before 22.5). */
export async function loadSqlite(): Promise<SqliteModule | undefined> {
  try {
    // A variable specifier: bundlers and the Node 20 type check leave the built-in alone.
    const name = 'node:sqlite'
    return (await import(name)) as SqliteModule
  } catch {
    return undefined
  }
}

export const SQLITE_MISSING = `Node ${process.versions.node} has no built-in SQLite (node:sqlite, Node 22.5 and later)`

/** The warning line for an end-of-life Node, or undefined on a supported one. */
export function nodeSupportWarning(version: string = process.versions.node): string | undefined {
  const major = Number(version.split('.')[0])
  if (!(major < 22)) return undefined
  return `Node ${version} is past its end of life (2026-04-30): the bridge runs, but opencode's SQLite sessions need Node 22.5 or later; install Node 24 (see the README's "Node versions")`
}
