import { afterEach, describe, expect, test } from 'vitest'
import { defaultLimits } from '../../core/limits.ts'
import { until } from '../harness/wait.ts'
import { flood, keptClient, startDaemon, type Daemon } from './nofile-daemon.ts'

/**
 * The daemon under a low descriptor limit (`prlimit --nofile`), flooded by unauthenticated
 * clients that never finish their /pair body. Before the fix the flood ran the process out of
 * descriptors and the next failed accept or spawn was an unhandled 'error' that ended it.
 */

const NOFILE = 96
const started: Daemon[] = []
afterEach(async () => {
  for (const d of started.splice(0)) await d.stop()
})

async function daemon(env: NodeJS.ProcessEnv = {}): Promise<Daemon> {
  const d = await startDaemon(NOFILE, env)
  started.push(d)
  return d
}

/** /branch-delete runs git; outside a repository it answers 400 once git has run. */
const branchDelete = (d: Daemon, c: ReturnType<typeof keptClient>) => c.call('/branch-delete', { repo_root: d.dir, branch: 'topic' })
const notARepo = (d: Daemon) => ({ status: 400, body: JSON.stringify({ error: `not a git repository: ${d.dir}` }) })

describe(`daemon at nofile=${NOFILE} under a flood of stalled /pair bodies`, () => {
  test('with caps above the descriptor limit: failed accepts and spawns are answered, the daemon lives', async () => {
    // Caps raised past the limit on purpose, so the flood does exhaust the descriptors.
    const d = await daemon({ BRIDGE_MAX_CONNECTIONS: '10000', BRIDGE_MAX_UNAUTHENTICATED: '10000' })
    const c = keptClient(d)
    expect(await branchDelete(d, c)).toEqual(notARepo(d))
    const socks = flood(d, 150)
    try {
      // Once the flood holds every descriptor, git's spawn fails with EMFILE: one line, 503.
      let r: { status: number; body: string } | undefined
      await until(async () => {
        if (d.exited()) return true
        r = await branchDelete(d, c).catch(() => undefined)
        return r?.status === 503
      }, 'the descriptors to run out')
      expect(d.exited()).toBe(false)
      expect(JSON.parse(r!.body).error).toMatch(/^[^\n]*out of file descriptors \(EMFILE\); retry later$/)
    } finally {
      for (const s of socks) s.socket.destroy()
    }
    // The flood gone, git runs again.
    await until(async () => (await branchDelete(d, c)).status === 400, 'git to run again')
    expect(await branchDelete(d, c)).toEqual(notARepo(d))
    expect(d.exited()).toBe(false)
    c.close()
    expect(d.output()).not.toMatch(/Unhandled|uncaught|^\s+at /im)
  })

  test('with the default caps the flood is refused with 503 and spawns keep working', async () => {
    const d = await daemon()
    const c = keptClient(d)
    expect((await c.call('/info')).status).toBe(200)
    const held = defaultLimits(NOFILE, {}).max_unauthenticated
    const socks = flood(d, 150)
    try {
      // Those under the unauthenticated cap are held by their stalled bodies; every other one is
      // answered and closed.
      await until(
        () => d.exited() || socks.filter((s) => s.closed()).length >= socks.length - held,
        () => `${socks.length - held} refusals (${socks.filter((s) => s.closed()).length} so far)`,
      )
      const refused = socks.filter((s) => s.closed())
      expect(refused).toHaveLength(socks.length - held)
      const answers = new Set(
        refused.map((s) =>
          s.received().startsWith('HTTP/1.1 503 ') && s.received().endsWith('\r\n\r\ntoo many unauthenticated connections; retry later\n') ? 'one-line 503' : s.received(),
        ),
      )
      expect([...answers]).toEqual(['one-line 503'])
      expect(await branchDelete(d, c)).toEqual(notARepo(d))
      expect(d.exited()).toBe(false)
    } finally {
      for (const s of socks) s.socket.destroy()
    }
    c.close()
  })
})
