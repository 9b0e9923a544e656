// Many /agent-transcript sockets on one pane, opening and closing while the file grows: every
// socket that stays sees the same live entries, and every closed socket's timers are released.
import { test, expect, afterAll } from 'vitest'
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { WebSocket } from 'undici'
import { startStack, type Stack } from '../harness/stack.ts'
import { encodeCwd } from '../../plugins/kind-claude/transcript/locate.ts'
import { connect, type FrameClient } from '../transcript/ws-client.ts'
import { until, activeTimers } from './util.ts'
import { reportBusyAgent } from '../harness/busy-agent.ts'

let st: Stack
afterAll(async () => {
  await st?.close()
})

const STAY = 150
const LEAVE = 150
const msg = (i: number) => JSON.stringify({ type: 'user', uuid: `t${i}`, timestamp: '2025-01-01T00:00:00.000Z', message: { role: 'user', content: `m${i}` } })

test(`${STAY + LEAVE} /agent-transcript sockets open and close on one pane while it is written: stayers get every live entry once, timers return to baseline`, async () => {
  st = await startStack()
  const cwd = join(st.home, 'proj')
  mkdirSync(cwd, { recursive: true })
  const projDir = join(st.home, '.claude', 'projects', encodeCwd(cwd))
  mkdirSync(projDir, { recursive: true })
  const file = join(projDir, 'ld1.jsonl')
  writeFileSync(file, Array.from({ length: 20 }, (_, i) => msg(i + 1)).join('\n') + '\n')
  const r = await st.sim.request('workspace.create', { cwd })
  const pane = r.root_pane.pane_id as string
  await reportBusyAgent(st.sim, pane, { source: 'herdr:claude', agent: 'claude', state: 'working', agent_session_id: 'ld1' })
  const url = `${st.bridge.wsUrl}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${st.bridge.adminToken}`
  const baseline = activeTimers()

  let written = 20
  const writer = setInterval(() => appendFileSync(file, msg(++written) + '\n'), 20)
  const stayers: FrameClient[] = []
  const leavers: Promise<unknown>[] = []
  try {
    const opening: Promise<void>[] = []
    for (let i = 0; i < STAY + LEAVE; i++) {
      if (i % 2) {
        const ws = new WebSocket(url)
        leavers.push(new Promise((res) => ws.addEventListener('close', res)))
        ws.addEventListener('open', () => ws.close(1000), { once: true })
      } else opening.push(connect(url).then((c) => void stayers.push(c)))
    }
    await Promise.all(opening)
    await Promise.all(leavers)
  } finally {
    clearInterval(writer)
  }
  const last = written
  // Every stayer: hello, its backlog, backlog_complete, then live entries with no gap or repeat up to the last line.
  for (const c of stayers) {
    const hello = await c.next()
    expect(hello).toMatchObject({ type: 'hello', protocol: 5, pane })
    const seqs: number[] = []
    for (;;) {
      const f = await c.next()
      if (f.type === 'backlog_complete') continue
      expect(f.type).toBe('entry')
      seqs.push(f.entry.seq)
      expect(f.entry.text).toBe(`m${f.entry.seq}`)
      if (f.entry.seq === last) break
    }
    const first = seqs[0]
    expect(first).toBe(hello.oldest_loaded_seq || hello.total + 1)
    expect(seqs).toEqual(Array.from({ length: last - first + 1 }, (_, i) => first + i))
  }
  // While open, each stream holds its three intervals (tail, rotation, roster) …
  expect(activeTimers() - baseline).toBeGreaterThanOrEqual(3 * STAY - 5)
  for (const c of stayers) c.close()
  await Promise.all(stayers.map((c) => c.closed))
  // … and none once its socket is gone, the leavers' included.
  await until(() => activeTimers() <= baseline + 2, `active timers back to ~${baseline} (now ${activeTimers()})`)
  expect(stayers.length).toBe(STAY)
}, 90_000)
