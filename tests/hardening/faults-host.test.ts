// Faults under the host routes: git hanging past its deadline (/diff answers 502 in time and the
// git process is gone), a drop directory that cannot exist (500 with a clear message, nothing
// left behind), herdr killed while /agent/start waits on it (a bounded 502, nothing stuck).
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync, readdirSync, readlinkSync, chmodSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSim } from '../harness/sim.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import { makeRepo, tempDir, type Repo } from '../diff/repo.ts'
import { PNG } from '../attachments/samples.ts'
import { bounded, until } from './util.ts'

const GIT_TIMEOUT_MS = 1500
let home: string
let sim: Awaited<ReturnType<typeof startSim>>
let bridge: TestBridge
const cleanup: Array<() => void> = []

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'faults-host-'))
  sim = await startSim({ home, sessions: ['default'], testMode: true })
  // The shims on PATH make claude "installed"; a short git deadline keeps the hang test quick.
  bridge = await startBridge({ home, env: { PATH: sim.clientEnv().PATH, BRIDGE_GIT_TIMEOUT_MS: String(GIT_TIMEOUT_MS) } })
}, 60_000)
afterAll(async () => {
  for (const c of cleanup) c()
  await bridge?.close().catch(() => {})
  await sim?.stop().catch(() => {})
  rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
})

async function shellPane(cwd: string): Promise<string> {
  return (await sim.request('workspace.create', { cwd, focus: false })).root_pane.pane_id
}
async function agentPane(cwd: string): Promise<string> {
  const pane = await shellPane(cwd)
  await sim.request('pane.report_agent', { pane_id: pane, source: 'custom:test', agent: 'claude', state: 'idle' })
  return pane
}

/** Processes whose working directory is `dir`, as `pid comm`. */
function processesIn(dir: string): string[] {
  const out: string[] = []
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) === dir) out.push(`${pid} ${readFileSync(`/proc/${pid}/comm`, 'utf8').trim()}`)
    } catch {
      // gone, or not ours to read
    }
  }
  return out
}

describe('git hanging past its deadline', () => {
  let repo: Repo
  let pane: string
  let pids: string

  beforeAll(async () => {
    repo = makeRepo({ files: { 'a.txt': 'a\n' } })
    cleanup.push(() => repo.cleanup())
    repo.write('a.txt', 'b\n')
    pane = await agentPane(repo.dir)
    // An fsmonitor hook that never answers: every `git status` in this repo hangs on it. Set after
    // the pane exists, so only the bridge's reads meet it.
    const hooks = tempDir('fsmonitor-')
    cleanup.push(() => rmSync(hooks, { recursive: true, force: true }))
    pids = join(hooks, 'pids')
    const hook = join(hooks, 'hang.sh')
    writeFileSync(hook, `#!/bin/sh\necho $$ >> '${pids}'\nexec sleep 120\n`)
    chmodSync(hook, 0o755)
    repo.git('config', 'core.fsmonitor', hook)
    cleanup.push(() => {
      // The hooks git left behind when it was killed (ours: started by this test's bridge).
      for (const pid of existsSync(pids) ? readFileSync(pids, 'utf8').split('\n').filter(Boolean) : []) {
        try {
          process.kill(Number(pid), 'SIGKILL')
        } catch {}
      }
    })
  })

  it('the hook really hangs git status here', async () => {
    const { spawn } = await import('node:child_process')
    const git = spawn('git', ['status', '--porcelain'], { cwd: repo.dir, detached: true, stdio: 'ignore' })
    const exited = new Promise((r) => git.once('exit', r))
    const first = await Promise.race([exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('still running'), 1000))])
    process.kill(-git.pid!, 'SIGKILL')
    await exited
    expect(first).toBe('still running')
  })

  it('/diff and /diff?context=1 answer 502 within the deadline, and no git is left running', async () => {
    for (const q of ['', '&context=1']) {
      const r = await bounded((signal) => bridge.request(`/diff?pane=${encodeURIComponent(pane)}${q}`, { signal }), GIT_TIMEOUT_MS + 8000)
      expect([q, r.status, r.body]).toEqual([q, 502, `git status ...: timed out after ${GIT_TIMEOUT_MS} ms`])
      expect(r.ms).toBeGreaterThanOrEqual(GIT_TIMEOUT_MS - 100)
    }
    // git itself was killed at the deadline (only the orphaned hook, a sleep, may linger).
    await until(() => processesIn(repo.dir).filter((p) => p.endsWith(' git')).length === 0, 'the timed-out git processes to exit', 10_000)
  })

  it('the bridge keeps serving git reads of other repositories meanwhile', async () => {
    const other = makeRepo({ files: { 'x.txt': 'x\n' } })
    cleanup.push(() => other.cleanup())
    const p = await agentPane(other.dir)
    const slow = bounded((signal) => bridge.request(`/diff?pane=${encodeURIComponent(pane)}`, { signal }), GIT_TIMEOUT_MS + 8000)
    const fast = await bounded((signal) => bridge.request(`/diff?pane=${encodeURIComponent(p)}`, { signal }), GIT_TIMEOUT_MS + 8000)
    expect(fast.status).toBe(200)
    expect(fast.ms).toBeLessThan(GIT_TIMEOUT_MS)
    expect((await slow).status).toBe(502)
  })
})

describe('a drop directory that cannot exist', () => {
  it('a pane whose directory was removed: 500 naming the directory and the reason (or 404 once herdr stops reporting a cwd); nothing written', async () => {
    const dir = tempDir('gone-')
    const pane = await shellPane(dir)
    // herdr reports the shell's cwd; wait for it, then pull the directory from under the shell.
    await until(async () => (await sim.request('pane.get', { pane_id: pane })).pane.cwd === dir, 'the pane cwd')
    rmSync(dir, { recursive: true, force: true })
    const r = await bounded(
      (signal) => bridge.request(`/image?pane=${encodeURIComponent(pane)}`, { method: 'POST', body: PNG, headers: { 'content-type': 'application/octet-stream' }, signal }),
      15_000,
    )
    // Which answer depends on whether herdr has re-read the shell's (now deleted) cwd yet; both
    // are the spec's: 404 "the multiplexer reports no cwd", or 500 "drop directory not writable".
    if (r.status === 404) expect(r.body).toBe('herdr reports no cwd for this pane')
    else {
      expect(r.status).toBe(500)
      expect(r.body).toMatch(new RegExp(`^drop directory ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*/\\.herdr-bridge/images is not writable: ENOENT$`))
    }
    expect(existsSync(dir)).toBe(false)
  })

  it('the directory replaced by a regular file: 500 ENOTDIR (or 404 once herdr reports no cwd), the file untouched', async () => {
    const parent = tempDir('file-')
    cleanup.push(() => rmSync(parent, { recursive: true, force: true }))
    const dir = join(parent, 'cwd')
    const { mkdirSync } = await import('node:fs')
    mkdirSync(dir)
    const pane = await agentPane(dir)
    await sim.request('pane.report_agent', { pane_id: pane, source: 'custom:test', agent: 'claude', state: 'idle' })
    // The agent's cwd is reported by herdr from the live process: wait until the shell runs in it
    // (removed before the shell starts, the pane's process cannot start and the pane is gone), then
    // replace the directory with a file.
    await until(async () => (await sim.request('pane.get', { pane_id: pane })).pane.cwd === dir, 'the pane cwd')
    const real = realpathSync(dir)
    rmSync(dir, { recursive: true })
    writeFileSync(dir, 'a file where the directory was\n')
    const r = await bounded(
      (signal) =>
        bridge.request(`/file?pane=${encodeURIComponent(pane)}`, {
          method: 'POST',
          body: Buffer.from('%PDF-1.4\n'),
          headers: { 'content-type': 'application/octet-stream' },
          signal,
        }),
      15_000,
    )
    // As above: once herdr has re-read the shell's vanished cwd it reports none (404, the spec's
    // "no cwd"); before that the bridge finds the path unwritable (500).
    if (r.status === 404) expect(r.body).toBe('herdr reports no cwd for this pane')
    else {
      expect(r.status).toBe(500)
      expect(r.body).toMatch(/^drop directory .*\.herdr-bridge\/files is not writable: (ENOTDIR|ENOENT)$/)
    }
    expect(readFileSync(real, 'utf8')).toBe('a file where the directory was\n')
  })
})

describe('herdr killed while /agent/start waits on it', () => {
  it('answers 502 within a bound, leaves no herdr CLI child behind, and serves again once herdr is back', async () => {
    const dir = tempDir('start-')
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
    const pane = await shellPane(dir)
    const started = bounded((signal) => bridge.request('/agent/start', { method: 'POST', json: { kind: 'claude', pane_id: pane, timeout_ms: 8000 }, signal }), 30_000)
    // herdr has taken the launch (the agent is registered, not yet ready): kill it now.
    await until(async () => {
      const r = await sim.request('agent.list', {}).catch(() => null)
      return r?.agents?.some((a: { pane_id: string }) => a.pane_id === pane)
    }, 'herdr to register the launch')
    await sim.kill()
    const r = await started
    expect(r.status).toBe(502)
    expect(r.body).toMatch(/^(herdr: |claude did not become ready)/)
    expect(r.body.includes('\n')).toBe(false)
    // No fake herdr CLI (catalog, terminal streams) is still running under this process.
    const kids = readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('herdr-cli')
        } catch {
          return false
        }
      })
    expect(kids).toEqual([])

    await sim.restart()
    await until(
      async () => (await bridge.request('/herdr', { method: 'POST', json: { method: 'session.snapshot', params: {} } })).status === 200,
      'the bridge to reach the new herdr',
    )
  }, 60_000)
})
