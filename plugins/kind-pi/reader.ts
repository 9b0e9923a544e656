/**
 * The pi transcript reader. herdr reports pi's session as a path (`agent_session.kind` `path`);
 * a bare id is looked up in the session dirs under `~/.pi/agent/sessions`. Paths are confined to the bridge's HOME.
 * pi has no subagents.
 */
import { readdir } from 'node:fs/promises'
import { join, resolve, sep } from 'node:path'
import { type AgentInfo, lastTimestamp, isFile, SAFE_NAME, sessionValue, type Location, type TranscriptReader } from '../../lib/kit.ts'
import { normalizePiLine } from './normalize.ts'

export const piSessionsDir = (home: string) => join(home, '.pi', 'agent', 'sessions')

/** `<timestamp>_<uuid>.jsonl` → `<uuid>`. */
const idOfFile = (p: string) => {
  const name = p.slice(p.lastIndexOf('/') + 1).replace(/\.jsonl$/, '')
  const i = name.lastIndexOf('_')
  return i >= 0 ? name.slice(i + 1) : name
}

async function locatePi(agent: AgentInfo, home: string): Promise<Location> {
  const v = sessionValue(agent)
  if (!v) return { ok: false, reason: 'transcript not available yet: this agent has not reported its session' }
  if (v.includes('/')) {
    const p = resolve(v)
    if (!p.endsWith('.jsonl') || !p.startsWith(resolve(home) + sep)) return { ok: false, reason: 'transcript not available: session path outside HOME' }
    if (!(await isFile(p))) return { ok: false, reason: 'transcript not available: no transcript file for this session' }
    return { ok: true, located: { sessionId: idOfFile(p), path: p } }
  }
  if (!SAFE_NAME.test(v)) return { ok: false, reason: 'transcript not available: unusable session id' }
  const root = piSessionsDir(home)
  let dirs: string[] = []
  try {
    dirs = (await readdir(root)).sort()
  } catch {}
  for (const d of dirs) {
    let names: string[] = []
    try {
      names = (await readdir(join(root, d))).sort()
    } catch {
      continue
    }
    const hit = names.find((n) => n.endsWith(`${v}.jsonl`))
    if (hit && (await isFile(join(root, d, hit)))) return { ok: true, located: { sessionId: v, path: join(root, d, hit) } }
  }
  return { ok: false, reason: 'transcript not available: no transcript file for this session' }
}

export const piTranscript: TranscriptReader = {
  locate: ({ agent, home }) => locatePi(agent, home),
  normalize: normalizePiLine,
  async lastActivity(agent, { home }) {
    const l = await locatePi(agent, home)
    return l.ok ? lastTimestamp(l.located.path) : undefined
  },
}
