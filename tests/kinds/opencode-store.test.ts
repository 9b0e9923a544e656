/**
 * Which of opencode's stores the bridge reads. opencode copies its JSON tree into SQLite and
 * leaves the tree behind, so both are often present: the one written last is current, and when
 * that is the database (which the bridge cannot read) the answer says so in one line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'
import { connect } from '../transcript/ws-client.ts'
import { OpencodeStore, placeholderDbReason, T0 } from './opencode-fixture.ts'
import type { GetResponses } from '../../plugins/web/app/src/lib/api-types.ts'

const HOUR = 3600
const now = () => Math.floor(Date.now() / 1000)

describe('opencode: the JSON tree beside opencode.db', () => {
  let stack: Stack
  let data: string
  let storage: string
  let cwd: string

  beforeAll(async () => {
    stack = await startStack()
    data = join(stack.home, '.local', 'share', 'opencode')
    storage = join(data, 'storage')
    cwd = join(stack.home, 'proj')
    mkdirSync(cwd, { recursive: true })
    const store = new OpencodeStore(storage, 'ses_tree')
    store.session(cwd, T0 + 5000)
    store.sampleTurn(0)
  }, 60_000)
  afterAll(async () => stack?.close())

  /** The tree's folders last written `age` seconds ago. */
  const treeWritten = (age: number) => {
    for (const d of ['', 'session', 'message', 'part']) utimesSync(join(storage, d), now() - age, now() - age)
  }
  /** A database file (content never read) last written `age` seconds ago. */
  const dbWritten = (name: string, age: number) => {
    writeFileSync(join(data, name), 'SQLite format 3\0')
    utimesSync(join(data, name), now() - age, now() - age)
  }

  async function paneWith(sessionId: string): Promise<string> {
    const pane = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    await reportBusyAgent(stack.sim, pane, { source: 'herdr:opencode', agent: 'opencode', state: 'working', agent_session_id: sessionId })
    return pane
  }
  const transcript = async (pane: string) => {
    const r = await fetch(`${stack.bridge.url}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`)
    return [r.status, await r.text()]
  }
  const activity = async (pane: string) => {
    const body = (await (await stack.bridge.request('/snapshot')).json()) as GetResponses['/snapshot']
    return body.result.snapshot.agents.find((a) => a.pane_id === pane)?.last_activity_ts
  }

  it('the tree written last is read: the session streams and is dated', async () => {
    dbWritten('opencode.db', 2 * HOUR)
    treeWritten(HOUR)
    const pane = await paneWith('ses_tree')
    const c = await connect(`${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`)
    expect(await c.next()).toMatchObject({ type: 'hello', agent_kind: 'opencode', session_id: 'ses_tree', total: 7 })
    c.close()
    expect(await activity(pane)).toBe(T0 + 5000)
  })

  it('opencode.db written last (its -wal counts): the tree is an old copy, unreadable here: refused in one line, not dated', async () => {
    const reason = placeholderDbReason('opencode.db, written after the older storage/ folder beside it')
    dbWritten('opencode.db', 2 * HOUR)
    treeWritten(HOUR)
    dbWritten('opencode.db-wal', 60)
    const pane = await paneWith('ses_tree')
    expect(await transcript(pane)).toEqual([404, reason])
    expect(await activity(pane)).toBeUndefined()
    // Without a session id the cwd's newest session in the tree is not guessed either.
    const bare = (await stack.sim.request('workspace.create', { cwd })).root_pane.pane_id as string
    await reportBusyAgent(stack.sim, bare, { source: 'herdr:opencode', agent: 'opencode', state: 'working' })
    expect(await transcript(bare)).toEqual([404, reason])
  })

  it("another release channel's database is named in the reason", async () => {
    const other = await startStack()
    try {
      const dir = join(other.home, '.local', 'share', 'opencode')
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'opencode-local.db'), 'SQLite format 3\0')
      const pane = (await other.sim.request('workspace.create', { cwd: other.home })).root_pane.pane_id as string
      await reportBusyAgent(other.sim, pane, { source: 'herdr:opencode', agent: 'opencode', state: 'working', agent_session_id: 'ses_x' })
      const r = await fetch(`${other.bridge.url}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${other.bridge.adminToken}`)
      expect([r.status, await r.text()]).toEqual([404, placeholderDbReason('opencode-local.db')])
    } finally {
      await other.close()
    }
  })
})
