/**
 * Real agent files other projects publish (tests/fixtures/real/, PROVENANCE.md there), each read
 * through its kind's reader and through the real `/agent-transcript`, and checked against an
 * independent simple reading of the file: every typed prompt and every assistant text present,
 * every tool call paired with its result and `ok` false exactly where the file says error,
 * entry counts equal to what the index pass counts, sequence numbers 1..total across pages, no
 * entry without content, no raw JSON shown as text, nothing unparsed, and the socket never
 * closed by a line type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startStack, type Stack } from '../harness/stack.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import { connect, type Frame } from './ws-client.ts'
import { encodeCwd } from '../../plugins/kind-claude/transcript/locate.ts'
import { countClaudeLine, normalizeClaudeLine } from '../../plugins/kind-claude/transcript/normalize.ts'
import { countCodexLine, normalizeCodexLine } from '../../plugins/kind-codex/transcript/normalize.ts'
import { normalizePiLine } from '../../plugins/kind-pi/normalize.ts'
import { piSessionsDir } from '../../plugins/kind-pi/reader.ts'
import { OpencodeSession, type SessionRecords } from '../../plugins/kind-opencode/transcript/store.ts'
import { sqliteRecords } from '../../plugins/kind-opencode/transcript/sqlite.ts'
import { HAS_SQLITE } from '../kinds/opencode-fixture.ts'
import type { Entry, RawEntry, RosterRow } from '../../lib/transcript/entry.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'real')

type Kind = 'claude' | 'codex' | 'pi'
interface Sample {
  kind: Kind
  /** Path under tests/fixtures/real/. */
  file: string
  /** Session id the agent reports (the file name's id). */
  sid: string
  /** Subagent transcripts beside a claude session. */
  subagents: string[]
}

function corpus(): Sample[] {
  const out: Sample[] = []
  const walk = (rel: string) => {
    for (const name of readdirSync(join(ROOT, rel)).sort()) {
      const p = join(rel, name)
      if (statSync(join(ROOT, p)).isDirectory()) {
        if (name !== 'subagents') walk(p)
        continue
      }
      if (!name.endsWith('.jsonl')) continue
      const kind = p.split('/')[0] as Kind
      // A pi session's id is in its header line (its file is named `<timestamp>_<id>.jsonl`).
      const sid =
        kind === 'codex'
          ? /([0-9a-f]{8}-[0-9a-f-]{27})\.jsonl$/.exec(name)![1]
          : kind === 'pi'
            ? JSON.parse(readFileSync(join(ROOT, p), 'utf8').split('\n', 1)[0]).id
            : name.slice(0, -6)
      let subagents: string[] = []
      try {
        subagents = readdirSync(join(ROOT, rel, sid, 'subagents')).filter((n) => n.endsWith('.jsonl'))
      } catch {}
      out.push({ kind, file: p, sid, subagents })
    }
  }
  walk('claude')
  walk('codex')
  walk('pi')
  return out
}

const SAMPLES = corpus()

/** Real opencode databases, under tests/fixtures/real/opencode/. */
const OPENCODE_DBS = ['opencode/opencode-project-manager/opencode.db']

interface OcSession {
  id: string
  messages: { id: string; data: string; parts: { id: string; data: string }[] }[]
}
/**
 * A database's sessions as a second SQLite client (Python's) reads them: independent of
 * node:sqlite, and there on Node 20. It reads a copy, so nothing is ever written beside the fixture.
 */
function dumpOpencode(file: string): { copy: string; sessions: OcSession[] } {
  const copy = join(mkdtempSync(join(tmpdir(), 'opencode-real-')), 'opencode.db')
  copyFileSync(join(ROOT, file), copy)
  const script = `
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
out = []
for (sid,) in db.execute('SELECT id FROM session ORDER BY id').fetchall():
    msgs = []
    for (mid, data) in db.execute('SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id', (sid,)).fetchall():
        parts = [{'id': pid, 'data': pd} for (pid, pd) in db.execute('SELECT id, data FROM part WHERE message_id = ? ORDER BY id', (mid,))]
        msgs.append({'id': mid, 'data': data, 'parts': parts})
    out.append({'id': sid, 'messages': msgs})
print(json.dumps(out))
`
  return { copy, sessions: JSON.parse(execFileSync('python3', ['-c', script, copy], { encoding: 'utf8', maxBuffer: 64 << 20 })) }
}
const OPENCODE = OPENCODE_DBS.map((file) => ({ file, ...dumpOpencode(file) }))

/** The dumped records as the opencode store reads them (each record's JSON with its row id). */
function dumpRecords(s: OcSession): SessionRecords {
  const byId = new Map(s.messages.map((m) => [m.id, m]))
  return {
    messages: async () => s.messages.map((m) => m.id),
    message: async (id) => JSON.parse(byId.get(id)!.data),
    parts: async (mid) => byId.get(mid)!.parts.map((p) => ({ ...JSON.parse(p.data), id: p.id })),
  }
}

async function opencodeEntries(records: SessionRecords): Promise<RawEntry[]> {
  const session = new OpencodeSession(records)
  await session.refresh()
  return session.read(1, session.total)
}
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
const normalize = (kind: Kind, l: string) => (kind === 'claude' ? normalizeClaudeLine(l) : kind === 'codex' ? normalizeCodexLine(l) : normalizePiLine(l))
/** pi has no separate index pass: its count is what it normalizes to. */
const count = (kind: Kind, l: string) => (kind === 'claude' ? countClaudeLine(l) : kind === 'codex' ? countCodexLine(l) : normalizePiLine(l).length)

/** What a person reading the file sees in it, independently of the readers. */
interface Reading {
  prompts: string[]
  replies: string[]
  calls: string[]
  /** Tool results by call id: whether the file says it failed. */
  results: Map<string, boolean>
  compactions: number
  /** Shell commands the user ran themselves (pi's `!`), each a call and its result: whether it failed. */
  userRuns: boolean[]
  /** Why a reply was cut short (an abort, a provider error), shown as a system line. */
  errors: string[]
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const textsOf = (content: unknown): string[] =>
  typeof content === 'string'
    ? [content]
    : Array.isArray(content)
      ? content.filter((b): b is { type: 'text'; text: string } => isObj(b) && b.type === 'text' && typeof b.text === 'string').map((b) => b.text)
      : []

function readClaude(file: string[]): Reading {
  const r: Reading = { prompts: [], replies: [], calls: [], results: new Map(), compactions: 0, userRuns: [], errors: [] }
  for (const l of file) {
    const o = JSON.parse(l)
    if (o.type === 'user' && o.isCompactSummary) r.compactions++
    else if (o.type === 'user' && isObj(o.message)) {
      if (!o.isMeta) r.prompts.push(...textsOf(o.message.content).filter((t) => t.trim()))
      for (const b of Array.isArray(o.message.content) ? o.message.content : [])
        if (isObj(b) && b.type === 'tool_result') r.results.set(b.tool_use_id as string, b.is_error === true || o.toolUseResult?.interrupted === true)
    } else if (o.type === 'assistant' && isObj(o.message)) {
      r.replies.push(...textsOf(o.message.content).filter((t) => t.trim()))
      for (const b of Array.isArray(o.message.content) ? o.message.content : []) if (isObj(b) && b.type === 'tool_use') r.calls.push(b.id as string)
    }
  }
  return r
}

/** A codex tool output says it failed by its exit code: a unified-exec header, an `Exit code:` block, or JSON metadata. */
function codexFailed(out: unknown): boolean {
  if (typeof out !== 'string') return isObj(out) && out.success === false
  const code = /^Process exited with code (-?\d+)$/m.exec(out.split('\nOutput:')[0]) ?? /^Exit code: (-?\d+)/.exec(out)
  if (code) return Number(code[1]) !== 0
  try {
    const j = JSON.parse(out)
    return typeof j?.metadata?.exit_code === 'number' && j.metadata.exit_code !== 0
  } catch {
    return false
  }
}

/** A content item of a codex message (input_text, output_text, …). */
type CodexContent = { type?: string; text?: string }

function readCodex(file: string[]): Reading {
  const r: Reading = { prompts: [], replies: [], calls: [], results: new Map(), compactions: 0, userRuns: [], errors: [] }
  for (const l of file) {
    const o = JSON.parse(l)
    const p = o.payload ?? {}
    if (o.type === 'compacted') r.compactions++
    if (o.type !== 'response_item') continue
    // What was typed: the user's text items, less what codex itself sends as the user (context and
    // instructions in tags, AGENTS.md). (event_msg user_message is no help: redacted files redact
    // it apart, and excerpts keep only it.)
    if (p.type === 'message' && p.role === 'user')
      r.prompts.push(
        ...(p.content ?? [])
          .filter((c: CodexContent | null) => c?.type === 'input_text' && c.text?.trim() && !/^\s*(<|# AGENTS\.md)/.test(c.text))
          .map((c: CodexContent) => c.text),
      )
    if (p.type === 'message' && p.role === 'assistant')
      r.replies.push(...(p.content ?? []).filter((c: CodexContent | null) => c?.type === 'output_text' && c.text?.trim()).map((c: CodexContent) => c.text))
    if (p.type === 'function_call' || p.type === 'custom_tool_call') r.calls.push(p.call_id)
    if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') r.results.set(p.call_id, codexFailed(p.output))
  }
  return r
}

function readPi(file: string[]): Reading {
  const r: Reading = { prompts: [], replies: [], calls: [], results: new Map(), compactions: 0, userRuns: [], errors: [] }
  for (const l of file) {
    const o = JSON.parse(l)
    if (o.type === 'compaction') r.compactions++
    if (o.type !== 'message' || !isObj(o.message)) continue
    const m = o.message
    if (m.role === 'user') r.prompts.push(...textsOf(m.content).filter((t) => t.trim()))
    if (m.role === 'assistant') {
      r.replies.push(...textsOf(m.content).filter((t) => t.trim()))
      // A reply that ended in an error or an abort says so.
      if (typeof m.errorMessage === 'string' && m.errorMessage.trim()) r.errors.push(m.errorMessage)
      for (const b of Array.isArray(m.content) ? m.content : []) if (isObj(b) && b.type === 'toolCall') r.calls.push(b.id as string)
    }
    if (m.role === 'toolResult') r.results.set(m.toolCallId, m.isError === true)
    if (m.role === 'bashExecution') r.userRuns.push(m.cancelled === true || m.exitCode !== 0)
  }
  return r
}

function readOpencode(s: OcSession): Reading {
  const r: Reading = { prompts: [], replies: [], calls: [], results: new Map(), compactions: 0, userRuns: [], errors: [] }
  for (const m of s.messages) {
    const role = JSON.parse(m.data).role
    for (const p of m.parts.map((x) => JSON.parse(x.data))) {
      if (p.type === 'compaction') r.compactions++
      // Synthetic and ignored text is opencode talking to the model, not the user typing.
      if (p.type === 'text' && !p.synthetic && !p.ignored && p.text?.trim()) (role === 'user' ? r.prompts : r.replies).push(p.text)
      if (p.type === 'tool' && ['running', 'completed', 'error'].includes(p.state?.status)) {
        r.calls.push(p.callID)
        if (p.state.status !== 'running') r.results.set(p.callID, p.state.status === 'error')
      }
    }
  }
  return r
}

const reading = (kind: Kind, file: string[]) => (kind === 'claude' ? readClaude(file) : kind === 'codex' ? readCodex(file) : readPi(file))

/** The reading's checks against entries (from the reader or from the socket). */
function check(reading: Reading, entries: RawEntry[]): void {
  const texts = (role: string) => entries.filter((e) => e.role === role && e.kind === 'message').map((e) => e.text ?? '')
  const has = (list: string[], t: string) => list.some((x) => x.startsWith(t.trim().slice(0, 80)))
  const users = texts('user')
  expect(reading.prompts.filter((t) => !has(users, t))).toEqual([])
  const assistants = texts('assistant')
  expect(reading.replies.filter((t) => !has(assistants, t))).toEqual([])
  const system = texts('system')
  expect(reading.errors.filter((t) => !has(system, t))).toEqual([])
  // The user's own shell runs: a call and its result each, under an id of their own.
  const runs = entries.filter((e) => e.kind === 'tool_call' && e.role === 'user').map((e) => e.tool!.id)
  expect(new Set(runs).size).toBe(reading.userRuns.length)
  const runResults = entries.filter((e) => e.kind === 'tool_result' && runs.includes(e.result!.for_id))
  expect(runResults.map((e) => !e.result!.ok)).toEqual(reading.userRuns)
  const calls = entries.filter((e) => e.kind === 'tool_call' && !runs.includes(e.tool!.id)).map((e) => e.tool!.id)
  expect(calls.filter((id) => id)).toEqual(reading.calls)
  const results = entries.filter((e) => e.kind === 'tool_result' && !runs.includes(e.result!.for_id))
  expect(new Map(results.map((e) => [e.result!.for_id, !e.result!.ok]))).toEqual(reading.results)
  // Paired: every result answers a call of the file.
  expect(results.filter((e) => !reading.calls.includes(e.result!.for_id)).map((e) => e.result!.for_id)).toEqual([])
  for (const e of entries) {
    // Nothing unparsed, nothing empty, no raw JSON where text is shown.
    expect(e.parsed, JSON.stringify(e).slice(0, 300)).toBe(true)
    expect(!!(e.text?.trim() || e.tool || e.result), JSON.stringify(e).slice(0, 300)).toBe(true)
    for (const shown of [e.text, e.tool?.title]) expect(/^\s*[[{]\s*"/.test(shown ?? ''), String(shown).slice(0, 200)).toBe(false)
  }
  expect(entries.filter((e) => e.role === 'system' && /^Conversation compacted/.test(e.text ?? '')).length).toBe(reading.compactions)
}

describe('real files through the readers', () => {
  it('the corpus holds at least 10 files from at least 4 repositories, claude, codex and pi', () => {
    const files = SAMPLES.length + SAMPLES.reduce((n, s) => n + s.subagents.length, 0)
    expect(files).toBeGreaterThanOrEqual(10)
    // The folder under the kind names the publishing repository (PROVENANCE.md).
    expect(new Set(SAMPLES.map((s) => s.file.split('/')[1])).size).toBeGreaterThanOrEqual(4)
    expect(new Set(SAMPLES.map((s) => s.kind))).toEqual(new Set(['claude', 'codex', 'pi']))
    expect(OPENCODE.flatMap((d) => d.sessions).length).toBeGreaterThan(0)
  })

  for (const s of SAMPLES) {
    it(`${s.file}: entries match the file, and the index pass counts them the same`, () => {
      const file = lines(join(ROOT, s.file))
      const entries = file.flatMap((l) => normalize(s.kind, l))
      for (const l of file) expect(count(s.kind, l), l.slice(0, 200)).toBe(normalize(s.kind, l).length)
      check(reading(s.kind, file), entries)
      for (const sub of s.subagents) {
        const subFile = lines(join(ROOT, dirname(s.file), s.sid, 'subagents', sub))
        check(
          readClaude(subFile),
          subFile.flatMap((l) => normalizeClaudeLine(l)),
        )
      }
    })
  }

  for (const db of OPENCODE)
    for (const s of db.sessions)
      it(`${db.file} ${s.id}: entries match the records, through either SQLite reader`, async () => {
        const entries = await opencodeEntries(dumpRecords(s))
        check(readOpencode(s), entries)
        // The kind's own reading of the file (node:sqlite) gives the same entries where the runtime has it.
        if (HAS_SQLITE) expect(await opencodeEntries(sqliteRecords(db.copy, s.id))).toEqual(entries)
      })

  it('progress lines, about two thirds of a real 2.1.39 session, give no entry', () => {
    const file = lines(join(ROOT, 'claude/spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl'))
    const progress = file.filter((l) => JSON.parse(l).type === 'progress')
    expect(progress.length / file.length).toBeGreaterThan(0.6)
    expect(progress.flatMap((l) => normalizeClaudeLine(l))).toEqual([])
  })

  it('AskUserQuestion: its question and options, then the answer, not JSON', () => {
    const file = lines(join(ROOT, 'claude/spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl'))
    const entries = file.flatMap((l) => normalizeClaudeLine(l))
    const ask = entries.find((e) => e.tool?.name === 'AskUserQuestion')!
    expect(ask.tool).toMatchObject({
      title: 'Pre-commit hook blocks on pre-existing dialyzer/credo issues in waiting_summary.ex (not our code). How should we proceed?',
      subtitle: 'Commit',
      input_summary: 'Skip hook (--no-verify) | Fix pre-existing issues',
    })
    const answer = entries.find((e) => e.result?.for_id === ask.tool!.id)!
    expect(answer.result!.output_summary).toBe(
      'Pre-commit hook blocks on pre-existing dialyzer/credo issues in waiting_summary.ex (not our code). How should we proceed? → main was clean; fix the issues',
    )
  })

  it('codex unified exec: a non-zero exit is a failed result, and the chunk header is not shown', () => {
    const file = lines(join(ROOT, 'codex/codemie/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl'))
    const results = file.flatMap((l) => normalizeCodexLine(l)).filter((e) => e.kind === 'tool_result')
    expect(results.filter((e) => !e.result!.ok).length).toBeGreaterThan(0)
    expect(results.filter((e) => /^Chunk ID: /.test(e.result!.output_summary ?? ''))).toEqual([])
  })
})

describe('real files through /agent-transcript', () => {
  let stack: Stack
  let cwd: string
  beforeAll(async () => {
    stack = await startStack()
    cwd = join(stack.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    for (const s of SAMPLES) {
      if (s.kind === 'claude') {
        const dir = join(stack.home, '.claude', 'projects', encodeCwd(cwd))
        mkdirSync(join(dir, s.sid, 'subagents'), { recursive: true })
        copyFileSync(join(ROOT, s.file), join(dir, `${s.sid}.jsonl`))
        for (const sub of s.subagents) copyFileSync(join(ROOT, dirname(s.file), s.sid, 'subagents', sub), join(dir, s.sid, 'subagents', sub))
      } else if (s.kind === 'pi') {
        // pi names a session file `<timestamp>_<id>.jsonl` in a folder per working directory.
        const dir = join(piSessionsDir(stack.home), `-${cwd.replaceAll('/', '-')}-`)
        mkdirSync(dir, { recursive: true })
        copyFileSync(join(ROOT, s.file), join(dir, `${basename(s.file, '.jsonl')}_${s.sid}.jsonl`))
      } else {
        const m = /^rollout-(\d{4})-(\d{2})-(\d{2})T/.exec(basename(s.file))!
        const dir = join(stack.home, '.codex', 'sessions', m[1], m[2], m[3])
        mkdirSync(dir, { recursive: true })
        copyFileSync(join(ROOT, s.file), join(dir, basename(s.file)))
      }
    }
    // opencode's current store: one database in its data folder (one database a home, so one file here).
    expect(OPENCODE.length).toBe(1)
    const data = join(stack.home, '.local', 'share', 'opencode')
    mkdirSync(data, { recursive: true })
    copyFileSync(join(ROOT, OPENCODE[0].file), join(data, 'opencode.db'))
  }, 60_000)
  afterAll(async () => stack?.close())

  async function pane(kind: Kind | 'opencode', sid: string): Promise<string> {
    const p = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    await reportBusyAgent(stack.sim, p, { source: `herdr:${kind}`, agent: kind, state: 'working', agent_session_id: sid })
    return p
  }

  /** Every entry of a stream, newest page then older pages, with the socket still open at the end. */
  async function streamAll(query: string): Promise<{ hello: Frame; entries: Entry[] }> {
    const c = await connect(`${stack.bridge.wsUrl}/agent-transcript?${query}&token=${stack.bridge.adminToken}`)
    const hello = await c.next()
    expect(hello.type).toBe('hello')
    const got: Entry[] = []
    for (let i = 0; i < hello.backlog_count; i++) got.push((await c.next()).entry)
    expect(await c.next()).toMatchObject({ type: 'backlog_complete', count: hello.backlog_count })
    let oldest = hello.oldest_loaded_seq
    let older = hello.has_older
    while (older) {
      c.send({ type: 'load_older', before_seq: oldest, limit: 500 })
      const page: Entry[] = []
      for (;;) {
        const f = await c.next()
        if (f.type === 'page_complete') {
          oldest = f.oldest_loaded_seq
          older = f.has_older
          break
        }
        page.push(f.entry)
      }
      got.unshift(...page)
    }
    // Still open: no line type closed it.
    expect(c.ws.readyState).toBe(1)
    c.close()
    return { hello, entries: got }
  }

  for (const s of SAMPLES) {
    it(`${s.file}: seq 1..total across pages, and the same checks on what the socket sent`, async () => {
      const p = await pane(s.kind, s.sid)
      const { hello, entries } = await streamAll(`pane=${encodeURIComponent(p)}`)
      expect(hello).toMatchObject({ agent_kind: s.kind, session_id: s.sid })
      expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: hello.total }, (_, i) => i + 1))
      const file = lines(join(ROOT, s.file))
      check(reading(s.kind, file), entries)
      if (s.subagents.length) {
        // Real 2.1.x subagent folders hold no .meta.json: every transcript is listed and streams.
        expect((hello.subagents as RosterRow[]).map((r) => r.agent_id).sort()).toEqual(s.subagents.map((n) => n.slice(6, -6)).sort())
        for (const sub of s.subagents) {
          const id = sub.slice(6, -6)
          const child = await streamAll(`pane=${encodeURIComponent(p)}&subagent=${id}`)
          expect(child.hello.subagent).toBe(id)
          expect(child.entries.map((e) => e.seq)).toEqual(Array.from({ length: child.hello.total }, (_, i) => i + 1))
        }
      }
    })
  }

  for (const s of OPENCODE[0].sessions)
    if (HAS_SQLITE)
      it(`${OPENCODE[0].file} ${s.id}: seq 1..total across pages, and the same checks on what the socket sent`, async () => {
        const p = await pane('opencode', s.id)
        const { hello, entries } = await streamAll(`pane=${encodeURIComponent(p)}`)
        expect(hello).toMatchObject({ agent_kind: 'opencode', session_id: s.id })
        expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: hello.total }, (_, i) => i + 1))
        check(readOpencode(s), entries)
      })
    else
      it(`${OPENCODE[0].file} ${s.id}: Node ${process.versions.node} refuses it in one line that says why`, async () => {
        const p = await pane('opencode', s.id)
        const r = await fetch(`${stack.bridge.url}/agent-transcript?pane=${encodeURIComponent(p)}&token=${stack.bridge.adminToken}`)
        expect([r.status, await r.text()]).toEqual([
          404,
          `transcript not available: this opencode keeps its sessions in SQLite (opencode.db); Node ${process.versions.node} has no built-in SQLite (node:sqlite, Node 22.5 and later)`,
        ])
      })

  it('a subagent without metadata is labelled from the spawning call in the parent', async () => {
    const p = await pane('claude', '4d5611e5-241a-462a-8d15-5122611a9569')
    const { hello } = await streamAll(`pane=${encodeURIComponent(p)}`)
    expect((hello.subagents as RosterRow[]).find((r) => r.agent_id === 'a2898e3')).toMatchObject({
      tool_use_id: 'toolu_017pLRuPHYTX5t99EnLyV53m',
      agent_type: 'Explore',
      description: 'Explore transcript rendering codebase',
      done: true,
    })
  })
})
