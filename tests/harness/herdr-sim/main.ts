// herdr simulator entry point.
//
//   node --import tsx tests/harness/herdr-sim/main.ts --config-dir DIR \
//        [--session default --session work ...] [--test-mode] [--stdin-control] \
//        [--cwd DIR] [--size 120x40] [--shim-dir DIR] [--initial-workspace] [--agent-kinds claude,pi]
//
// Listens on DIR/herdr.sock (session "default") and DIR/sessions/<name>/herdr.sock, then prints
// one line `ready {json}`. With --stdin-control it also reads JSON commands on stdin
// ({"cmd":"stop"|"start","session":"work","fresh":true}) answering `ok {json}` / `err {json}`,
// and exits when stdin closes, so a dead parent never leaves a simulator behind.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'
import { isValidSessionName } from './ids.ts'
import { SimSession } from './session.ts'

const here = path.dirname(fileURLToPath(import.meta.url))
const harnessDir = path.resolve(here, '..')

interface Args {
  configDir: string
  sessions: string[]
  testMode: boolean
  stdinControl: boolean
  cwd: string
  size: { width: number; height: number }
  shimDir?: string
  initialWorkspace: boolean
  /** Kinds that get a fake-agent shim (claude and pi unless --agent-kinds says otherwise). */
  agentKinds: string[]
}

function parseArgs(argv: string[]): Args {
  const out: Args = {
    configDir: '',
    sessions: [],
    testMode: false,
    stdinControl: false,
    cwd: process.env.HOME ?? os.homedir(),
    size: { width: 120, height: 40 },
    initialWorkspace: false,
    agentKinds: ['claude', 'pi'],
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const value = (): string => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${a} needs a value`)
      return v
    }
    if (a === '--config-dir') out.configDir = path.resolve(value())
    else if (a === '--session') out.sessions.push(value())
    else if (a === '--test-mode') out.testMode = true
    else if (a === '--stdin-control') out.stdinControl = true
    else if (a === '--cwd') out.cwd = path.resolve(value())
    else if (a === '--shim-dir') out.shimDir = path.resolve(value())
    else if (a === '--initial-workspace') out.initialWorkspace = true
    else if (a === '--agent-kinds')
      out.agentKinds = value()
        .split(',')
        .filter((k) => /^[a-z][a-z0-9-]*$/.test(k))
    else if (a === '--size') {
      const m = /^([0-9]+)x([0-9]+)$/.exec(value())
      if (!m) throw new Error('--size wants COLSxROWS')
      out.size = { width: Number(m[1]), height: Number(m[2]) }
    } else throw new Error(`unknown argument ${a}`)
  }
  if (!out.configDir) throw new Error('--config-dir is required')
  if (out.sessions.length === 0) out.sessions.push('default')
  for (const s of out.sessions) if (!isValidSessionName(s)) throw new Error(`invalid session name ${s}`)
  out.sessions = [...new Set(out.sessions)]
  return out
}

export function socketPathFor(configDir: string, session: string): string {
  return session === 'default' ? path.join(configDir, 'herdr.sock') : path.join(configDir, 'sessions', session, 'herdr.sock')
}

/** Writes the agent shims (which run the fake agent) and a `herdr` link to the fake CLI. */
function writeShims(shimDir: string, kinds: string[]): void {
  fs.mkdirSync(shimDir, { recursive: true })
  const tsx = import.meta.resolve('tsx')
  const agent = path.join(harnessDir, 'fake-agents', 'agent.ts')
  for (const kind of kinds) {
    const file = path.join(shimDir, kind)
    fs.writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" --import "${tsx}" "${agent}" --kind ${kind} "$@"\n`, { mode: 0o755 })
  }
  const link = path.join(shimDir, 'herdr')
  fs.rmSync(link, { force: true })
  fs.symlinkSync(path.join(harnessDir, 'bin', 'herdr'), link)
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const shimDir = args.shimDir ?? path.join(args.configDir, 'sim-bin')
  writeShims(shimDir, args.agentKinds)
  const sessions = new Map<string, SimSession>()
  for (const name of args.sessions) {
    const socketPath = socketPathFor(args.configDir, name)
    fs.mkdirSync(path.dirname(socketPath), { recursive: true })
    sessions.set(
      name,
      new SimSession({
        name,
        socketPath,
        testMode: args.testMode,
        shimDir,
        herdrBin: path.join(harnessDir, 'bin', 'herdr'),
        defaultCwd: args.cwd,
        area: args.size,
      }),
    )
  }
  await Promise.all([...sessions.values()].map((s) => s.start()))
  if (args.initialWorkspace) {
    for (const s of sessions.values()) s.state.createWorkspace({})
  }

  let exiting = false
  const shutdown = async (code: number): Promise<void> => {
    if (exiting) return
    exiting = true
    // Never hang on the way out: a stuck socket must not keep a simulator alive.
    setTimeout(() => process.exit(code), 5000).unref()
    await Promise.allSettled([...sessions.values()].map((s) => s.shutdown()))
    process.exit(code)
  }
  process.on('SIGTERM', () => void shutdown(0))
  process.on('SIGINT', () => void shutdown(0))
  process.on('SIGHUP', () => void shutdown(0))

  const ready = {
    pid: process.pid,
    configDir: args.configDir,
    shimDir,
    testMode: args.testMode,
    sessions: Object.fromEntries([...sessions].map(([name, s]) => [name, s.config.socketPath])),
  }
  process.stdout.write(`ready ${JSON.stringify(ready)}\n`)

  if (args.stdinControl) {
    const rl = readline.createInterface({ input: process.stdin })
    rl.on('line', (line) => void control(line))
    rl.on('close', () => void shutdown(0))
  }

  async function control(line: string): Promise<void> {
    const reply = (ok: boolean, body: unknown): boolean => process.stdout.write(`${ok ? 'ok' : 'err'} ${JSON.stringify(body)}\n`)
    let cmd: { cmd?: string; session?: string; fresh?: boolean; seq?: number; method?: string; params?: unknown }
    try {
      cmd = JSON.parse(line)
    } catch {
      return void reply(false, { error: 'bad json' })
    }
    const session = sessions.get(cmd.session ?? 'default')
    if (!session) return void reply(false, { seq: cmd.seq, error: `no session ${cmd.session}` })
    try {
      if (cmd.cmd === 'stop') await session.stop({ fresh: cmd.fresh === true })
      else if (cmd.cmd === 'start') await session.start()
      else if (cmd.cmd === 'call') session.direct(String(cmd.method), cmd.params ?? {})
      else return void reply(false, { seq: cmd.seq, error: `unknown cmd ${cmd.cmd}` })
      reply(true, { seq: cmd.seq, session: cmd.session ?? 'default', listening: session.listening })
    } catch (err) {
      reply(false, { seq: cmd.seq, error: String(err) })
    }
  }
}

main().catch((err) => {
  process.stderr.write(`herdr-sim: ${(err as Error).stack ?? String(err)}\n`)
  process.exit(1)
})
