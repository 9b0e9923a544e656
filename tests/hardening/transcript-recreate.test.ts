// A transcript file deleted and recreated under a live /agent-transcript stream. The chosen
// behaviour: the socket stays open, nothing already sent is replayed, and the recreated file is
// streamed from its first line as live entries whose seqs continue after the old file's last.
// On Linux the new file usually gets the deleted file's inode number back, so the reader must
// not take "same inode" for "same file".
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdirSync, writeFileSync, appendFileSync, unlinkSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { startStack, type Stack } from '../harness/stack.ts'
import { encodeCwd } from '../../plugins/kind-claude/transcript/locate.ts'
import { connect, type Frame, type FrameClient } from '../transcript/ws-client.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'

let stack: Stack
let cwd: string
let projDir: string

const msg = (i: number, sid: string, text = `message ${i}`) =>
  JSON.stringify({ type: 'user', uuid: `${sid}-u${i}`, timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, i % 60)).toISOString(), message: { role: 'user', content: text } })
const lines = (sid: string, from: number, to: number, tag = '') =>
  Array.from({ length: to - from + 1 }, (_, k) => msg(from + k, sid, `${tag}message ${from + k}`)).join('\n') + '\n'

async function agentPane(sessionId: string): Promise<string> {
  const r = await stack.sim.request('workspace.create', { cwd })
  const pane = r.root_pane.pane_id as string
  await reportBusyAgent(stack.sim, pane, { source: 'herdr:claude', agent: 'claude', state: 'working', agent_session_id: sessionId })
  return pane
}

const url = (pane: string) => `${stack.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`

/** Opens the stream and consumes hello + backlog; returns the client and the hello. */
async function open(pane: string, backlog: number): Promise<{ c: FrameClient; hello: Frame }> {
  const c = await connect(url(pane))
  const hello = await c.next()
  expect(hello).toMatchObject({ type: 'hello', backlog_count: backlog })
  await c.take(backlog)
  expect(await c.next()).toMatchObject({ type: 'backlog_complete', count: backlog })
  return { c, hello }
}

/** The next `n` frames must be live entries with these seqs and texts. */
async function expectLive(c: FrameClient, seqs: number[], texts: string[]): Promise<void> {
  const got = await c.take(seqs.length, 15_000)
  expect(got.map((f) => [f.type, f.live, f.entry.seq, f.entry.text])).toEqual(seqs.map((s, i) => ['entry', true, s, texts[i]]))
}

/** A load_older round trip: everything queued before it on the socket's queue has run. */
async function roundTrip(c: FrameClient, before: number): Promise<Frame> {
  c.send({ type: 'load_older', before_seq: before, limit: 1 })
  return c.until((f) => f.type === 'page_complete')
}

beforeAll(async () => {
  stack = await startStack()
  cwd = join(stack.home, 'proj')
  mkdirSync(cwd, { recursive: true })
  projDir = join(stack.home, '.claude', 'projects', encodeCwd(cwd))
  mkdirSync(projDir, { recursive: true })
}, 60_000)
afterAll(async () => stack?.close())

describe('/agent-transcript: transcript file deleted and recreated while streaming', () => {
  it('recreated longer in the same instant: streams the new file from its first line, seqs continue, no replay', async () => {
    const file = join(projDir, 'dl1.jsonl')
    writeFileSync(file, lines('dl1', 1, 5))
    const pane = await agentPane('dl1')
    const { c } = await open(pane, 5)
    unlinkSync(file)
    writeFileSync(file, lines('dl1b', 1, 8, 'new '))
    await expectLive(
      c,
      [6, 7, 8, 9, 10, 11, 12, 13],
      Array.from({ length: 8 }, (_, i) => `new message ${i + 1}`),
    )
    // And it keeps tailing the new file.
    appendFileSync(file, msg(9, 'dl1b', 'new message 9') + '\n')
    await expectLive(c, [14], ['new message 9'])
    // Paging never reaches into the deleted file: its entries are gone.
    c.send({ type: 'load_older', before_seq: 6, limit: 10 })
    expect(await c.next()).toEqual({ type: 'page_complete', requested_before_seq: 6, oldest_loaded_seq: 0, has_older: false })
    c.close()
  })

  it('recreated shorter in the same instant: the new lines still stream (a shrink is not taken for an old offset)', async () => {
    const file = join(projDir, 'dl2.jsonl')
    writeFileSync(file, lines('dl2', 1, 6))
    const pane = await agentPane('dl2')
    const { c } = await open(pane, 6)
    unlinkSync(file)
    writeFileSync(file, lines('dl2b', 1, 2, 'short '))
    await expectLive(c, [7, 8], ['short message 1', 'short message 2'])
    c.close()
  })

  it('deleted for a while: the socket stays open and answers load_older with an empty page; a recreated file then streams', async () => {
    const file = join(projDir, 'dl3.jsonl')
    writeFileSync(file, lines('dl3', 1, 3))
    const pane = await agentPane('dl3')
    const { c } = await open(pane, 3)
    unlinkSync(file)
    // Several tail periods pass with the file gone; each load_older is answered, never a crash.
    for (let i = 0; i < 4; i++) expect(await roundTrip(c, 4)).toMatchObject({ type: 'page_complete', requested_before_seq: 4 })
    // The stream is still open, and so is the bridge for plain requests.
    expect((await stack.bridge.request('/snapshot')).status).toBe(200)
    writeFileSync(file, lines('dl3b', 1, 2, 'again '))
    await expectLive(c, [4, 5], ['again message 1', 'again message 2'])
    c.close()
  })

  it('replaced by rename (an atomic rewrite) with old content plus more: the whole new file streams after the old seqs', async () => {
    const file = join(projDir, 'dl4.jsonl')
    writeFileSync(file, lines('dl4', 1, 2))
    const pane = await agentPane('dl4')
    const { c } = await open(pane, 2)
    writeFileSync(file + '.tmp', lines('dl4', 1, 3))
    renameSync(file + '.tmp', file)
    // A different file: its three lines are new entries (the stream cannot know two were seen).
    await expectLive(c, [3, 4, 5], ['message 1', 'message 2', 'message 3'])
    c.close()
  })

  it('a new socket on the recreated file starts from its own newest page', async () => {
    const file = join(projDir, 'dl5.jsonl')
    writeFileSync(file, lines('dl5', 1, 4))
    const pane = await agentPane('dl5')
    const first = await open(pane, 4)
    unlinkSync(file)
    writeFileSync(file, lines('dl5b', 1, 2, 'b '))
    await expectLive(first.c, [5, 6], ['b message 1', 'b message 2'])
    const c = await connect(url(pane))
    const hello = await c.next()
    expect(hello).toMatchObject({ type: 'hello', backlog_count: 2, total: 6, oldest_loaded_seq: 5, has_older: false })
    expect((await c.take(2)).map((f) => [f.entry.seq, f.entry.text])).toEqual([
      [5, 'b message 1'],
      [6, 'b message 2'],
    ])
    expect(await c.next()).toEqual({ type: 'backlog_complete', count: 2, has_more: false })
    c.close()
    first.c.close()
  })

  it('herdr stopped and restarted while streaming: the stream keeps tailing throughout; a new connection while down is 502', async () => {
    const file = join(projDir, 'hd1.jsonl')
    writeFileSync(file, lines('hd1', 1, 2))
    const pane = await agentPane('hd1')
    const { c } = await open(pane, 2)
    await stack.sim.stopSession('default')
    appendFileSync(file, msg(3, 'hd1') + '\n')
    await expectLive(c, [3], ['message 3'])
    const res = await fetch(`${stack.bridge.url}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${stack.bridge.adminToken}`)
    expect(res.status).toBe(502)
    expect(await res.text()).toMatch(/^herdr: unreachable: [^\n]+$/)
    // The socket still answers paging while herdr is away.
    for (let i = 0; i < 3; i++) expect(await roundTrip(c, 3)).toMatchObject({ type: 'page_complete', requested_before_seq: 3 })
    await stack.sim.startSession('default')
    appendFileSync(file, msg(4, 'hd1') + '\n')
    await expectLive(c, [4], ['message 4'])
    c.close()
  })
})
