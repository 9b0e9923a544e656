import { afterAll, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createConsola } from 'consola'
import { startSim, type Sim } from '../harness/sim.ts'
import { createBus } from '../../core/bus.ts'
import { createHerdr } from '../../core/herdr/index.ts'
import { watchHerdr } from '../../core/herdr/watch.ts'
import { nodeSupportWarning } from '../../lib/node-support.ts'
import { sandbox, startDaemon, type Daemon } from './helpers.ts'

// Each CLI call is a new node process: on a loaded 2-core machine one can take seconds.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

/** What `serve` says about herdr when nothing answers, and for an older herdr. */

const cleanup: (() => Promise<unknown> | void)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
})

describe('no herdr session reachable', () => {
  it('says so at start, and again while it stays true', async () => {
    const home = mkdtempSync(join(tmpdir(), 'bridge-noherdr-'))
    cleanup.push(() => rmSync(home, { recursive: true, force: true }))
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }
    const lines: string[] = []
    const log = createConsola({ level: 3, reporters: [{ log: (l) => void lines.push(l.args.join(' ')) }] })
    const herdr = createHerdr({ env })
    const stop = watchHerdr({ herdr, bus: createBus(), log, env, everyMs: 150 })
    cleanup.push(() => (stop(), herdr.close()))
    const want = `no herdr session is reachable (looked at ${join(home, '.config/herdr/herdr.sock')} and ${join(home, '.config/herdr/sessions')}/*/herdr.sock): install herdr, start it, or set HERDR_SOCKET_PATH`
    await vi.waitFor(() => expect(lines.filter((l) => l === want).length).toBeGreaterThanOrEqual(3), { timeout: 20_000 })
  })

  it('the daemon prints it at start', async () => {
    const box = sandbox()
    cleanup.push(() => rmSync(box.root, { recursive: true, force: true }))
    const d = await startDaemon(box.env)
    cleanup.push(() => d.stop())
    await d.waitFor(
      `no herdr session is reachable (looked at ${join(box.home, '.config/herdr/herdr.sock')} and ${join(box.home, '.config/herdr/sessions')}/*/herdr.sock): install herdr, start it, or set HERDR_SOCKET_PATH`,
    )
  })
})

describe('an older herdr', () => {
  it('is warned about once', async () => {
    const box = sandbox()
    const sim: Sim = await startSim({ home: box.home, sessions: ['default'], env: { HERDR_SIM_MODE: '0.8', HERDR_SIM_PROTOCOL: '19' }, validate: false })
    cleanup.push(() => rmSync(box.root, { recursive: true, force: true }))
    cleanup.push(() => sim.stop())
    const d: Daemon = await startDaemon({ ...box.env, ...sim.clientEnv() })
    cleanup.push(() => d.stop())
    await d.waitFor(`herdr session default found at ${sim.socketPath('default')} (herdr 0.8.0, protocol 19)`)
    const warning = 'herdr session default speaks protocol 19, older than 20 this bridge was built for; update herdr if something is missing'
    expect(d.output()).toContain(warning)
    await sim.stopSession('default')
    await d.waitFor('herdr session default lost')
    await sim.startSession('default')
    await d.waitFor(/herdr session default lost[\s\S]*herdr session default found/)
    expect(d.output().split(warning).length - 1).toBe(1)
  })
})

describe('a herdr newer than any tested', () => {
  it('gets a one-line notice, once', async () => {
    const box = sandbox()
    const sim: Sim = await startSim({
      home: box.home,
      sessions: ['default'],
      env: { HERDR_SIM_MODE: '0.9', HERDR_SIM_VERSION: '0.10.0', HERDR_SIM_PROTOCOL: '23' },
      validate: false,
    })
    cleanup.push(() => rmSync(box.root, { recursive: true, force: true }))
    cleanup.push(() => sim.stop())
    const d: Daemon = await startDaemon({ ...box.env, ...sim.clientEnv() })
    cleanup.push(() => d.stop())
    await d.waitFor(`herdr session default found at ${sim.socketPath('default')} (herdr 0.10.0, protocol 23)`)
    const notice =
      'herdr session default: herdr 0.10.0 (protocol 23) is newer than this bridge was tested with (herdr 0.9.1, protocol 22); it should work, and a feature the server lacks fails only that action'
    expect(d.output().split(notice).length - 1).toBe(1)
    expect(d.output()).not.toContain('older than')
    // The Node line: on Node 20 one warning at start, on a supported Node none.
    const oldNode = nodeSupportWarning()
    if (oldNode) expect(d.output().split(oldNode).length - 1).toBe(1)
    else expect(d.output()).not.toContain('past its end of life')
  })
})
