/**
 * The kit's locating helpers on real files: a session file's header lines, the newest session a
 * kind recognises, and the cwd fallback claude and codex share when herdr reports no session id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { locateByCwd, newestSession, readHeadLines, type AgentInfo } from '../../lib/kit.ts'
import { encodeCwd, locateClaude, projectsDir } from '../../plugins/kind-claude/transcript/locate.ts'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kit-locate-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const agent = (pane: string, cwd?: string, sid?: string): AgentInfo => ({
  pane_id: pane,
  workspace_id: 'w',
  tab_id: 't',
  terminal_id: 'x',
  agent: 'claude',
  agent_status: 'working',
  ...(cwd ? { cwd } : {}),
  ...(sid ? { agent_session: { source: 'herdr:claude', agent: 'claude', kind: 'id', value: sid } } : {}),
})

/** A file with a given mtime (seconds since the epoch). */
function file(path: string, text: string, mtime: number) {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
  utimesSync(path, mtime, mtime)
  return path
}

describe('readHeadLines', () => {
  it('the first non-empty lines within the byte window; a cut last line as it stands; [] when unreadable', async () => {
    const p = file(join(dir, 'head.jsonl'), '\n{"a":1}\n\n{"b":2}\n{"c":3}\n', 1)
    expect(await readHeadLines(p, 1024)).toEqual(['{"a":1}'])
    expect(await readHeadLines(p, 1024, 2)).toEqual(['{"a":1}', '{"b":2}'])
    expect(await readHeadLines(p, 13, 5)).toEqual(['{"a":1}', '{"b'])
    expect(await readHeadLines(join(dir, 'absent.jsonl'), 1024)).toEqual([])
    expect(await readHeadLines(dir, 1024)).toEqual([])
  })
})

describe('newestSession', () => {
  it('the newest file identify accepts; identify is asked only about files newer than the best so far', async () => {
    const a = file(join(dir, 'n', 'a'), 'a', 100)
    const b = file(join(dir, 'n', 'b'), 'b', 300)
    const c = file(join(dir, 'n', 'c'), 'c', 200)
    const d = file(join(dir, 'n', 'd'), 'd', 400)
    const asked: string[] = []
    const found = await newestSession([a, b, c, d, join(dir, 'n', 'gone'), join(dir, 'n')], async (p) => {
      asked.push(p)
      return p === d ? undefined : `id-${p.slice(-1)}`
    })
    expect(found).toEqual({ sessionId: 'id-b', path: b })
    expect(asked).toEqual([a, b, d])
    expect(await newestSession([a], async () => '../escape')).toBeNull()
  })
})

describe('locateByCwd', () => {
  const newest = async (cwds: string[]) => ({ sessionId: 's', path: cwds[0] + '/s.jsonl' })
  it('the newest session of the cwd; refused without a cwd, beside a twin, or when there is none', async () => {
    expect(await locateByCwd(agent('p1', '/w'), [], newest)).toEqual({ ok: true, located: { sessionId: 's', path: '/w/s.jsonl' } })
    expect(await locateByCwd(agent('p1'), [], newest)).toEqual({ ok: false, reason: 'transcript not available yet: this agent has not reported its session id' })
    expect(await locateByCwd(agent('p1', '/w'), [agent('p1', '/w'), agent('p2', '/w')], newest)).toEqual({
      ok: false,
      reason: 'transcript not available yet — this agent has not reported its session id',
    })
    expect(await locateByCwd(agent('p1', '/w'), [], async () => null)).toEqual({ ok: false, reason: 'transcript not available: no transcript file for this agent' })
  })
})

describe('claude without a session id', () => {
  it('takes the newest file of the cwd whose records were written there; a known id finds its file anywhere', async () => {
    const home = join(dir, 'home')
    const cwd = '/work/app.v2'
    const project = join(projectsDir(home), encodeCwd(cwd))
    const rec = (c: string) => `\n{"type":"summary"}\n{"type":"user","cwd":"${c}"}\n`
    file(join(project, 'older.jsonl'), rec(cwd), 1000)
    // Newer, but written from another directory that encodes the same (`.` and `/` both become `-`).
    file(join(project, 'other.jsonl'), rec('/work/app/v2'), 3000)
    file(join(project, 'newest.jsonl'), rec(cwd), 2000)
    file(join(project, 'bad name!.jsonl'), rec(cwd), 4000)
    expect(await locateClaude({ agent: agent('p1', cwd), home, env: {}, others: [] })).toEqual({
      ok: true,
      located: { sessionId: 'newest', path: join(project, 'newest.jsonl') },
    })
    const elsewhere = file(join(projectsDir(home), '-elsewhere', 'abc.jsonl'), rec('/elsewhere'), 1000)
    expect(await locateClaude({ agent: agent('p1', cwd, 'abc'), home, env: {}, others: [] })).toEqual({ ok: true, located: { sessionId: 'abc', path: elsewhere } })
  })
})
