/**
 * Gemini CLI's session log: `~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`
 * (`<project>` is the slug `~/.gemini/projects.json` gives the project root, or, in older builds,
 * the sha256 of the root). The first line is the session's metadata (`sessionId`, `startTime`,
 * …); every other line is a whole message record `{id, timestamp, type: user|gemini|info|error|
 * warning, content, thoughts?, toolCalls?}` or a bookkeeping record (`$set`, `$rewindTo`).
 * Gemini appends a message again, complete, when it gains tool calls or results.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  cap,
  capRunes,
  cwdsOf,
  isObj,
  lastTimestamp,
  locateByCwd,
  newestSession,
  normalizeJsonLine,
  oneLine,
  parseJsonRecord,
  readHeadLines,
  SAFE_NAME,
  sessionValue,
  str,
  stripAnsi,
  OUTPUT_CAP,
  SUMMARY_CAP,
  TEXT_CAP,
  type LocateInput,
  type Location,
  type RawEntry,
  type TranscriptCapability,
  type TranscriptHost,
} from 'herdr-bridge'

export const geminiDir = ({ home, env }: TranscriptHost) => (env.GEMINI_CLI_HOME?.trim() ? join(env.GEMINI_CLI_HOME.trim(), '.gemini') : join(home, '.gemini'))

// ---- normalize: one record → entries ----

export function normalizeGeminiLine(line: string): RawEntry[] {
  return normalizeJsonLine(line, normalizeRecord)
}

function normalizeRecord(o: Record<string, unknown>): RawEntry[] {
  // Metadata, `$set` and `$rewindTo` records carry no conversation.
  if (typeof o.type !== 'string' || typeof o.id !== 'string') return []
  const base = { id: o.id, ...(typeof o.timestamp === 'string' ? { ts: o.timestamp } : {}) }
  const text = textOf(o.displayContent ?? o.content)
  switch (o.type) {
    case 'user':
      return text ? [{ ...base, role: 'user', kind: 'message', text: cap(text, TEXT_CAP), parsed: true }] : []
    case 'info':
    case 'warning':
    case 'error':
      return text ? [{ ...base, role: 'system', kind: 'message', text: cap(text, TEXT_CAP), parsed: true }] : []
    case 'gemini': {
      const out: RawEntry[] = []
      const thoughts = Array.isArray(o.thoughts)
        ? o.thoughts
            .filter(isObj)
            .map((t) => [str(t.subject), str(t.description)].filter(Boolean).join(': '))
            .filter(Boolean)
        : []
      if (thoughts.length) out.push({ ...base, id: `${o.id}#thoughts`, role: 'assistant', kind: 'thinking', text: cap(thoughts.join('\n'), TEXT_CAP), parsed: true })
      if (text) out.push({ ...base, role: 'assistant', kind: 'message', text: cap(text, TEXT_CAP), parsed: true })
      for (const call of Array.isArray(o.toolCalls) ? o.toolCalls.filter(isObj) : []) out.push(...toolEntries(call, base.ts))
      return out
    }
    default:
      return [{ ...base, role: 'system', kind: 'message', parsed: false }]
  }
}

/** Gemini's content: a string, a part, or a list of them; text parts joined. */
function textOf(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content]
  return parts
    .map((p) => (typeof p === 'string' ? p : isObj(p) && typeof p.text === 'string' && p.thought !== true ? p.text : ''))
    .join('')
    .trim()
}

function toolEntries(call: Record<string, unknown>, ts: string | undefined): RawEntry[] {
  const id = str(call.id) ?? ''
  const name = str(call.name) ?? ''
  const args = isObj(call.args) ? call.args : {}
  const command = name === 'run_shell_command' ? str(args.command) : undefined
  let json = ''
  try {
    json = JSON.stringify(args)
  } catch {}
  const tool = {
    id,
    name,
    title: str(call.displayName) || name,
    ...(command ? { command } : {}),
    ...(command ? { input_summary: oneLine(command, SUMMARY_CAP) } : json && json !== '{}' ? { input_summary: oneLine(json, SUMMARY_CAP) } : {}),
  }
  const at = str(call.timestamp) ?? ts
  const out: RawEntry[] = [{ id: `tool-${id}`, ...(at ? { ts: at } : {}), role: 'assistant', kind: 'tool_call', tool, parsed: true }]
  const status = str(call.status)
  if (status === 'success' || status === 'error' || status === 'cancelled') {
    const shown = typeof call.resultDisplay === 'string' ? call.resultDisplay : resultText(call.result)
    const c = capRunes(stripAnsi(shown).trim(), OUTPUT_CAP)
    out.push({
      id: `result-${id}`,
      ...(at ? { ts: at } : {}),
      role: 'user',
      kind: 'tool_result',
      result: { for_id: id, ok: status === 'success', ...(c.text ? { output_summary: c.text } : {}), ...(c.cut ? { truncated: true } : {}) },
      parsed: true,
    })
  }
  return out
}

/** `[{functionResponse: {response: {output}}}]` → the output text. */
function resultText(result: unknown): string {
  const parts = Array.isArray(result) ? result : [result]
  return parts
    .map((p) => {
      if (typeof p === 'string') return p
      const r = isObj(p) && isObj(p.functionResponse) ? p.functionResponse.response : undefined
      return isObj(r) ? (str(r.output) ?? str(r.error) ?? '') : ''
    })
    .filter(Boolean)
    .join('\n')
}

// ---- locate ----

/** The project folders of a cwd under `tmp/`: its slug from projects.json, then the legacy hash. */
async function projectDirs(host: TranscriptHost, cwd: string): Promise<string[]> {
  const root = join(geminiDir(host), 'tmp')
  const dirs: string[] = []
  try {
    const reg = JSON.parse(await readFile(join(geminiDir(host), 'projects.json'), 'utf8'))
    const slug = reg?.projects?.[cwd]
    if (typeof slug === 'string' && SAFE_NAME.test(slug)) dirs.push(join(root, slug))
  } catch {}
  dirs.push(join(root, createHash('sha256').update(cwd).digest('hex')))
  return dirs
}

async function sessionFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(join(dir, 'chats')))
      .filter((n) => /^session-.*\.jsonl$/.test(n))
      .sort()
      .reverse()
      .map((n) => join(dir, 'chats', n))
  } catch {
    return []
  }
}

/** `sessionId` from the first line (its metadata record). */
async function sessionIdOf(path: string): Promise<string | undefined> {
  const id = parseJsonRecord((await readHeadLines(path, 16 << 10))[0] ?? '')?.sessionId
  return typeof id === 'string' ? id : undefined
}

export async function locateGemini({ agent, home, env, others }: LocateInput): Promise<Location> {
  const host = { home, env }
  const sid = sessionValue(agent)
  // No id: the newest session of the pane's projects.
  if (!sid) return locateByCwd(agent, others, (cwds) => newestOfProjects(host, cwds))
  if (!SAFE_NAME.test(sid)) return { ok: false, reason: 'transcript not available: unusable session id' }
  for (const cwd of cwdsOf(agent)) {
    for (const dir of await projectDirs(host, cwd)) {
      // The file name carries the id's first 8 characters; the metadata line says the rest.
      for (const f of (await sessionFiles(dir)).filter((f) => f.endsWith(`-${sid.slice(0, 8)}.jsonl`))) {
        if ((await sessionIdOf(f)) === sid) return { ok: true, located: { sessionId: sid, path: f } }
      }
    }
  }
  return { ok: false, reason: 'transcript not available: no gemini session file for this agent' }
}

async function newestOfProjects(host: TranscriptHost, cwds: string[]) {
  const paths: string[] = []
  for (const cwd of cwds) for (const dir of await projectDirs(host, cwd)) paths.push(...(await sessionFiles(dir)).slice(0, 50))
  return newestSession(paths, sessionIdOf)
}

export const geminiTranscript: TranscriptCapability = {
  locate: locateGemini,
  normalize: normalizeGeminiLine,
  async lastActivity(agent, host) {
    if (!sessionValue(agent)) return undefined
    const l = await locateGemini({ agent, ...host })
    return l.ok ? lastTimestamp(l.located.path) : undefined
  },
}
