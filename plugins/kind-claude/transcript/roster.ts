/**
 * Claude's subagent roster: `<session dir>/subagents/agent-<id>.jsonl` beside the parent file,
 * flat for every depth, one row per transcript. Labels come from `agent-<id>.meta.json` when it
 * is there and readable, else from the parent's spawning call (real 2.1.x sessions write no
 * metadata), else stay empty; done comes from the parent transcript.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { type RosterRow, isObj, SAFE_NAME, type Located, lastTimestamp } from '../../../lib/kit.ts'
import { isDone, scanDone } from './done-scan.ts'

const META_MAX = 64 << 10

export const subagentsDir = (parent: Located) => join(parent.path.replace(/\.jsonl$/, ''), 'subagents')

/** Only ever called with an id taken from a discovered row. */
export const subagentPath = (parent: Located, agentId: string) => join(subagentsDir(parent), `agent-${agentId}.jsonl`)

/** Agent ids having a transcript; [] when the dir is missing. */
export async function subagentIds(parent: Located): Promise<string[]> {
  let names: string[]
  try {
    names = await readdir(subagentsDir(parent))
  } catch {
    return []
  }
  const ids: string[] = []
  for (const n of names) {
    const m = /^agent-(.+)\.jsonl$/.exec(n)
    if (m && SAFE_NAME.test(m[1])) ids.push(m[1])
  }
  return ids
}

export async function claudeRoster(parent: Located): Promise<RosterRow[]> {
  const ids = await subagentIds(parent)
  if (!ids.length) return []
  const done = await scanDone(parent.path)
  const rows = await Promise.all(
    ids.map(async (id): Promise<RosterRow> => {
      const meta = await readMeta(join(subagentsDir(parent), `agent-${id}.meta.json`))
      const toolUseId = typeof meta.toolUseId === 'string' ? meta.toolUseId : (done.spawnedBy.get(id) ?? '')
      const spawn = done.spawns.get(toolUseId)
      const row: RosterRow = {
        agent_id: id,
        tool_use_id: toolUseId,
        agent_type: typeof meta.agentType === 'string' ? meta.agentType : (spawn?.agent_type ?? ''),
        description: typeof meta.description === 'string' ? meta.description : (spawn?.description ?? ''),
        spawn_depth: typeof meta.spawnDepth === 'number' && Number.isInteger(meta.spawnDepth) && meta.spawnDepth > 0 ? meta.spawnDepth : 1,
        done: false,
      }
      row.done = isDone(done, id, row.tool_use_id)
      const ts = await lastTimestamp(subagentPath(parent, id))
      if (ts !== undefined) row.last_activity_ts = ts
      return row
    }),
  )
  return rows.sort((a, b) => a.spawn_depth - b.spawn_depth || (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0))
}

async function readMeta(p: string): Promise<Record<string, unknown>> {
  try {
    const st = await stat(p)
    if (!st.isFile() || st.size > META_MAX) return {}
    const o = JSON.parse(await readFile(p, 'utf8'))
    return isObj(o) ? o : {}
  } catch {
    return {}
  }
}
