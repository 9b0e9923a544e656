// Many agent panes under a low open-file limit: the daemon holds a live status subscription (one
// herdr connection) for at most a quarter of the limit, checks the other panes every 10 s over
// one connection at a time, says so in one log line, and keeps answering HTTP clients.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSim, type Sim } from '../harness/sim.ts'
import { until } from '../harness/wait.ts'
import { startDaemon, type Daemon } from './nofile-daemon.ts'

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 })

const NOFILE = 256
const PANES = 300
const WATCHED = NOFILE / 4
let home: string
let sim: Sim
let d: Daemon
const panes: string[] = []

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridge-watchers-'))
  sim = await startSim({ home, sessions: ['default'], testMode: true })
  for (let i = 0; i < PANES; i++) {
    const made = await sim.request('workspace.create', { cwd: home, focus: false })
    const pane = made.root_pane.pane_id as string
    await sim.request('pane.report_agent', { pane_id: pane, source: 'custom:test', agent: 'claude', state: 'idle' })
    panes.push(pane)
  }
  d = await startDaemon(NOFILE, { HERDR_SOCKET_PATH: sim.socketPath('default') })
})
afterAll(async () => {
  await d?.stop()
  await sim?.stop()
  rmSync(home, { recursive: true, force: true })
})

const get = async (path: string) => {
  const r = await fetch(`${d.base}${path}`, { headers: { authorization: `Bearer ${d.token}` } })
  return { status: r.status, body: await r.text() }
}
const agentStatus = async (pane: string) => {
  const { body } = await get('/snapshot')
  return (JSON.parse(body).result.snapshot.agents as { pane_id: string; agent_status: string }[]).find((a) => a.pane_id.endsWith(pane))?.agent_status
}

describe(`${PANES} agent panes at nofile=${NOFILE}`, () => {
  it(`watches ${WATCHED} live, says so once, and every client still gets its answer`, async () => {
    await until(
      () => d.output().includes('have their status watched live'),
      () => `no watcher-cap line in:\n${d.output()}`,
      60_000,
    )
    const lines = d
      .output()
      .split('\n')
      .filter((l) => l.includes('have their status watched live'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(
      `herdr session default: more than ${WATCHED} agent panes; ${WATCHED} have their status watched live (a quarter of the open-file limit), the others are checked every 10 s`,
    )
    // Descriptors held: the watchers, the listener, herdr requests in flight and the runtime's
    // own event and pipe descriptors (more on newer Node lines), clear of the limit.
    const fdDir = `/proc/${d.proc.pid}/fd`
    const fds = readdirSync(fdDir).map((n) => {
      try {
        return readlinkSync(join(fdDir, n))
      } catch {
        return 'gone'
      }
    })
    expect(fds.filter((l) => l.startsWith('socket:')).length).toBeGreaterThanOrEqual(WATCHED)
    expect(fds.length).toBeLessThan(NOFILE * 0.75)
    for (const path of ['/info', '/snapshot', '/admin/status']) expect((await get(path)).status).toBe(200)
    expect(d.exited()).toBe(false)
  })

  it('a status change of a pane past the cap is seen by the 10 s check', async () => {
    const last = panes.at(-1)!
    expect(await agentStatus(last)).toBe('idle')
    await sim.request('pane.report_agent', { pane_id: last, source: 'custom:test', agent: 'claude', state: 'working' })
    await until(async () => (await agentStatus(last)) === 'working', 'the last pane to read working', 30_000, 500)
  })
})
