// Descriptor exhaustion under every kind of route: the daemon at a low open-file limit
// (`prlimit --nofile`), flooded until no descriptor is left, answers each route with what it
// answered before or a one-line 502/503 (herdr unreachable, a child that cannot start), never a
// 500 or a stack, keeps running, and answers as before once the flood is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSim, type Sim } from '../harness/sim.ts'
import { until } from '../harness/wait.ts'
import { makeRepo, type Repo } from '../diff/repo.ts'
import { flood, keptClient, startDaemon, type Daemon } from '../security/nofile-daemon.ts'

const NOFILE = 128
let home: string
let sim: Sim
let repo: Repo
let d: Daemon
let routes: Array<[string, unknown?]>
/** What /browse answered out of descriptors (the known defect below). */
let browseDuring: { status: number; body: string } | undefined

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridge-fd-faults-'))
  sim = await startSim({ home, sessions: ['default'], testMode: true })
  repo = makeRepo({ files: { 'README.md': 'hi\n' } })
  const made = await sim.request('workspace.create', { cwd: repo.dir, focus: false })
  const pane = made.root_pane.pane_id as string
  await sim.request('pane.report_agent', { pane_id: pane, source: 'custom:test', agent: 'claude', state: 'idle' })
  repo.write('notes.txt', 'untracked\n')
  // Caps raised past the limit on purpose, so the flood does exhaust the descriptors.
  d = await startDaemon(NOFILE, { HERDR_SOCKET_PATH: sim.socketPath('default'), BRIDGE_MAX_CONNECTIONS: '10000', BRIDGE_MAX_UNAUTHENTICATED: '10000' })
  const p = encodeURIComponent(pane)
  routes = [
    ['/info'],
    ['/snapshot'],
    ['/readyz'],
    ['/admin/status'],
    [`/agent-state?pane=${p}`],
    [`/diff?pane=${p}`],
    [`/diff/expand?pane=${p}&path=README.md`],
    [`/branch-info?workspace_id=${encodeURIComponent(made.workspace.workspace_id)}`],
    [`/suggestions?pane=${p}`],
    ['/ports'],
    [`/browse?path=${encodeURIComponent(d.dir)}`],
    ['/agents/available'],
    ['/branch-delete', { repo_root: repo.dir, branch: 'no-such-branch' }],
  ]
}, 60_000)
afterAll(async () => {
  await d?.stop()
  await sim?.stop()
  repo?.cleanup()
  rmSync(home, { recursive: true, force: true })
})

describe(`every route at nofile=${NOFILE} with no descriptor left`, () => {
  it('answers as before or with one 502/503 line, never a 500, and answers as before once descriptors are back', async () => {
    const c = keptClient(d)
    const statusOf = async ([path, json]: [string, unknown?]) => (await c.call(path, json)).status
    // Settled answers first: the daemon reaches herdr and has read its first snapshot.
    await until(async () => (await statusOf(['/readyz'])) === 200 && (await statusOf(routes[4])) === 200, 'the daemon to see the agent pane')
    const before = new Map<string, number>()
    for (const r of routes) before.set(r[0], await statusOf(r))
    expect([...before.values()]).not.toContain(500)

    const socks = flood(d, 250)
    const during: string[] = []
    try {
      await until(async () => d.exited() || (await c.call('/branch-delete', routes.at(-1)![1]).catch(() => null))?.status === 503, 'the descriptors to run out')
      expect(d.exited()).toBe(false)
      for (const r of routes) {
        const { status, body } = await c.call(r[0], r[1])
        during.push(`${r[0]} ${status}`)
        if (r[0].startsWith('/browse')) {
          browseDuring = { status, body }
          continue
        }
        expect([r[0], status === before.get(r[0]) || status === 502 || status === 503]).toEqual([r[0], true])
        if (status >= 500) expect([r[0], body.trim().split('\n').length, /\n\s+at /.test(body)]).toEqual([r[0], 1, false])
      }
    } finally {
      for (const s of socks) s.socket.destroy()
    }
    // The spawn and herdr routes did fail: the run exercised exhaustion, not a quiet daemon.
    expect(during.filter((l) => / 50[23]$/.test(l)).length).toBeGreaterThanOrEqual(3)

    await until(async () => {
      for (const r of routes) if ((await statusOf(r)) !== before.get(r[0])) return false
      return true
    }, 'every route to answer as before')
    expect(d.exited()).toBe(false)
    c.close()
    expect(d.output()).not.toMatch(/Unhandled|uncaught|^\s+at /im)
  })

  // Out of descriptors is the bridge's trouble, not the directory's permissions.
  it('/browse out of descriptors is a one-line 503, not a 403', () => {
    expect(browseDuring?.status).toBe(503)
  })
})
