// The fake `herdr` CLI: session discovery, status, and terminal streaming over JSON lines.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import readline from 'node:readline'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { HERDR_BIN } from '../harness/sim.ts'
import { until } from '../harness/wait.ts'
import { useSim } from './helpers.ts'

const run = promisify(execFile)
const T = 30000

interface Streamed {
  proc: ChildProcess
  /** The CLI's JSON lines (`terminal.frame`, `terminal.closed`, …), parsed. */
  lines: Record<string, unknown>[]
  exited: Promise<number | null>
}

function stream(args: string[], env: Record<string, string>): Streamed {
  const proc = spawn(HERDR_BIN, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  const lines: Record<string, unknown>[] = []
  readline.createInterface({ input: proc.stdout! }).on('line', (l) => lines.push(JSON.parse(l)))
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)))
  return { proc, lines, exited }
}

const decoded = (s: Streamed): string =>
  s.lines
    .filter((l) => l.type === 'terminal.frame')
    .map((l) => Buffer.from(l.bytes as string, 'base64').toString('utf8'))
    .join('')

describe('fake herdr CLI', () => {
  const { sim } = useSim({ sessions: ['default', 'work'] })
  const env = (): Record<string, string> => ({ HOME: sim().home, XDG_CONFIG_HOME: `${sim().home}/.config` })

  it(
    'session list --json lists default first, then named sessions',
    async () => {
      const { stdout } = await run(HERDR_BIN, ['session', 'list', '--json'], { env: { ...process.env, ...env() } })
      const parsed = JSON.parse(stdout)
      expect(parsed.sessions).toEqual([
        { name: 'default', default: true, running: true, socket_path: sim().socketPath('default'), session_dir: sim().configDir },
        { name: 'work', default: false, running: true, socket_path: sim().socketPath('work'), session_dir: `${sim().configDir}/sessions/work` },
      ])
    },
    T,
  )

  it(
    'status server --json reports the socket, honouring --session and HERDR_SOCKET_PATH',
    async () => {
      const base = { ...process.env, ...env() }
      expect(JSON.parse((await run(HERDR_BIN, ['status', 'server', '--json'], { env: base })).stdout)).toMatchObject({ running: true, socket: sim().socketPath() })
      expect(JSON.parse((await run(HERDR_BIN, ['--session', 'work', 'status', 'server', '--json'], { env: base })).stdout).socket).toBe(sim().socketPath('work'))
      const viaEnv = JSON.parse((await run(HERDR_BIN, ['status', 'server', '--json'], { env: { ...base, HERDR_SOCKET_PATH: sim().socketPath('work') } })).stdout)
      expect(viaEnv.socket).toBe(sim().socketPath('work'))
    },
    T,
  )

  it(
    'agent start --help lists the kinds',
    async () => {
      const { stdout } = await run(HERDR_BIN, ['agent', 'start', '--help'])
      expect(stdout).toMatch(/--kind <KIND>\s+.*\[possible values: pi, claude, codex, /)
    },
    T,
  )

  it(
    'terminal session observe streams frames with text typed in the pane',
    async () => {
      const ws = await sim().request('workspace.create', {})
      const pane = ws.root_pane.pane_id
      const obs = stream(['terminal', 'session', 'observe', pane, '--cols', '100', '--rows', '30'], env())
      try {
        const first = await until(() => obs.lines[0], 'first observe frame')
        expect(Object.keys(first)).toEqual(['bytes', 'encoding', 'full', 'height', 'seq', 'type', 'width'])
        expect(first).toMatchObject({ type: 'terminal.frame', encoding: 'ansi', full: true, seq: 1, width: 100, height: 30 })
        await sim().request('pane.send_text', { pane_id: pane, text: 'echo observed-text\r' })
        await until(() => decoded(obs).includes('observed-text'), 'observed text in frames')
        expect(obs.lines.at(-1)!.full).toBe(false)
      } finally {
        obs.proc.kill()
      }
    },
    T,
  )

  it(
    'terminal session control writes input, enforces one controller, and detaches on EOF',
    async () => {
      const ws = await sim().request('workspace.create', {})
      const pane = ws.root_pane.pane_id
      const ctl = stream(['terminal', 'session', 'control', pane, '--cols', '90', '--rows', '20'], env())
      await until(() => ctl.lines[0], 'first control frame')
      ctl.proc.stdin!.write(`${JSON.stringify({ type: 'terminal.input', text: 'echo from-control\r' })}\n`)
      await until(async () => (await sim().request('pane.read', { pane_id: pane, source: 'recent' })).read.text.includes('\nfrom-control\n'), 'control input')
      const term = ws.root_pane.terminal_id
      const second = stream(['terminal', 'session', 'control', pane], env())
      expect(await second.exited).toBe(0)
      expect(second.lines.at(-1)).toEqual({
        reason: `terminal attach failed: terminal ${term} already has an attached client; retry with --takeover`,
        type: 'terminal.closed',
      })
      const thief = stream(['terminal', 'session', 'control', pane, '--takeover'], env())
      await until(() => thief.lines[0], 'first takeover frame')
      expect(await ctl.exited).toBe(0)
      expect(ctl.lines.at(-1)).toEqual({ reason: 'terminal attach taken over', type: 'terminal.closed' })
      thief.proc.stdin!.end()
      expect(await thief.exited).toBe(0)
      expect(thief.lines.at(-1)).toEqual({ reason: 'detached', type: 'terminal.closed' })
    },
    T,
  )

  it(
    "an unknown target ends the stream with herdr's reason",
    async () => {
      const obs = stream(['terminal', 'session', 'observe', 'w9:p9'], env())
      expect(await obs.exited).toBe(0)
      expect(obs.lines).toEqual([{ reason: 'terminal session observe failed: terminal target w9:p9 not found', type: 'terminal.closed' }])
    },
    T,
  )
})
