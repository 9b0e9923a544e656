/**
 * What the parent transcript says about its subagents. Labels: each spawning call (`Task`/`Agent`
 * tool_use: subagent_type, description) and the agent id it started, read from the call's
 * `agent_progress` lines (`data.agentId` under `parentToolUseID`) or its result
 * (`toolUseResult.agentId`); real 2.1.x sessions write no `.meta.json`, so this is where a
 * roster row's labels come from then. Done: an asynchronous
 * spawn is done once its completion notification arrives (keyed by agent id), a synchronous one
 * once its call returns a result (keyed by tool-use id). Scanned incrementally per parent file;
 * only complete lines; reset on shrink.
 */
import { open } from 'node:fs/promises'
import { createCache, field, scanLines, isObj } from '../../../lib/kit.ts'

export interface DoneState {
  /** Last status each agent id was given by a notification, in file order. */
  status: Map<string, string>
  /** tool-use ids of spawns with run_in_background: false. */
  sync: Set<string>
  /** Synchronous spawns whose tool_result has arrived. */
  returned: Set<string>
  /** Spawning calls by tool-use id: what the parent asked for. */
  spawns: Map<string, { agent_type: string; description: string }>
  /** Agent id → the tool-use id of the call that started it. */
  spawnedBy: Map<string, string>
}

interface Cached extends DoneState {
  offset: number
  ino: number
}

const MAX_LINE = 8 << 20
const CACHE_MAX = 256
const cache = createCache<string, Cached>({ max: CACHE_MAX })

const BLOCK = /<task-notification>([\s\S]*?)<\/task-notification>/g
const TASK_ID = /<task-id>([^<\\]*)<\/task-id>/g
const STATUS = /<status>([^<\\]*)<\/status>/g

/** Feeds one raw transcript line into the state. Exported for tests. */
export function observeLine(state: DoneState, line: string): void {
  if (line.includes('<task-id>')) {
    const blocks = [...line.matchAll(BLOCK)].map((m) => m[1])
    // A notification without its wrapper is one block: the line.
    for (const block of blocks.length ? blocks : [line]) {
      const ids = [...block.matchAll(TASK_ID)].map((m) => m[1].trim()).filter(Boolean)
      const statuses = [...block.matchAll(STATUS)]
      if (!ids.length || !statuses.length) continue
      const status = statuses[statuses.length - 1][1].trim()
      for (const id of ids) {
        state.status.delete(id) // keep insertion order = last report
        state.status.set(id, status)
      }
    }
  }
  if (line.includes('"tool_use"') && (line.includes('"Task"') || line.includes('"Agent"'))) {
    for (const b of blocksOf(line, 'assistant')) {
      if (b.type !== 'tool_use' || (b.name !== 'Task' && b.name !== 'Agent') || typeof b.id !== 'string' || !isObj(b.input)) continue
      if (b.input.run_in_background === false) state.sync.add(b.id)
      const label = (v: unknown) => (typeof v === 'string' ? v : '')
      state.spawns.set(b.id, { agent_type: label(b.input.subagent_type), description: label(b.input.description) })
    }
  }
  if (line.includes('"agentId"')) observeAgentId(state, line)
  if (state.sync.size && line.includes('"tool_result"')) {
    let mentions = false
    for (const id of state.sync) if (!state.returned.has(id) && line.includes(id)) mentions = true
    if (mentions)
      for (const b of blocksOf(line, 'user')) if (b.type === 'tool_result' && typeof b.tool_use_id === 'string' && state.sync.has(b.tool_use_id)) state.returned.add(b.tool_use_id)
  }
}

/** Links an agent id to its spawning call: from an `agent_progress` line or the call's result. */
function observeAgentId(state: DoneState, line: string): void {
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch {
    return
  }
  if (!isObj(parsed)) return
  const o = parsed
  const link = (agentId: unknown, toolUseId: unknown) => {
    if (typeof agentId === 'string' && agentId && typeof toolUseId === 'string' && toolUseId && !state.spawnedBy.has(agentId)) state.spawnedBy.set(agentId, toolUseId)
  }
  const content = field(o.message, 'content')
  if (o.type === 'progress' && isObj(o.data) && o.data.type === 'agent_progress') link(o.data.agentId, o.parentToolUseID)
  else if (o.type === 'user' && isObj(o.toolUseResult) && Array.isArray(content)) {
    const tur = o.toolUseResult
    const results = (content as unknown[]).filter((b) => isObj(b) && b.type === 'tool_result')
    if (results.length === 1) link(tur.agentId, field(results[0], 'tool_use_id'))
    // A foreground call's result says how its agent ended (2.1.x: `status: "completed"`).
    const id = tur.agentId
    if (typeof id === 'string' && id && typeof tur.status === 'string' && !state.status.has(id)) state.status.set(id, tur.status)
  }
}

function blocksOf(line: string, type: string): Record<string, unknown>[] {
  try {
    const o: unknown = JSON.parse(line)
    const c = field(o, 'type') === type ? field(field(o, 'message'), 'content') : undefined
    return Array.isArray(c) ? c.filter(isObj) : []
  } catch {
    return []
  }
}

export function isDone(state: DoneState, agentId: string, toolUseId: string): boolean {
  const s = state.status.get(agentId)
  // The notification wins over the tool result, even when it says running.
  if (s !== undefined) return s.toLowerCase() !== 'running'
  return !!toolUseId && state.returned.has(toolUseId)
}

export const emptyDoneState = (): DoneState => ({ status: new Map(), sync: new Set(), returned: new Set(), spawns: new Map(), spawnedBy: new Map() })

const inflight = new Map<string, Promise<DoneState>>()

/** The done state of a parent transcript, brought up to date with its complete lines. */
export function scanDone(path: string): Promise<DoneState> {
  // One pass per file at a time: two overlapping passes would observe the same lines twice.
  let p = inflight.get(path)
  if (!p) {
    p = scanOnce(path).finally(() => inflight.delete(path))
    inflight.set(path, p)
  }
  return p
}

async function scanOnce(path: string): Promise<DoneState> {
  let fh
  try {
    fh = await open(path, 'r')
  } catch {
    return emptyDoneState()
  }
  try {
    const st = await fh.stat()
    let c = cache.get(path)
    if (!c || c.ino !== st.ino || st.size < c.offset) c = cache.set(path, { ...emptyDoneState(), offset: 0, ino: st.ino })
    if (st.size > c.offset) {
      const state = c
      c.offset = await scanLines(fh, c.offset, st.size, MAX_LINE, (text) => text !== null && observeLine(state, text))
    }
    return c
  } finally {
    await fh.close()
  }
}
