// The fake `herdr` CLI: the subset of herdr's command line a bridge runs as a process, on top of
// the herdr simulator. Plain JavaScript so it starts fast and needs no loader.
//
// Socket resolution follows herdr (src/session.rs): --session, then HERDR_SOCKET_PATH, then
// HERDR_SESSION, then the default session under $XDG_CONFIG_HOME/herdr or ~/.config/herdr.
// Terminal streaming (`terminal session observe|control`, `agent attach`) uses the simulator's
// private `sim.terminal.attach` method on the API socket instead of herdr's binary client socket.
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'

// The herdr the simulator plays (tests/harness/herdr-sim/mode.ts; this file cannot import it).
const MODE_09 = process.env.HERDR_SIM_MODE === '0.9'
const PROTOCOL = MODE_09 ? 22 : 20
const VERSION = process.env.HERDR_SIM_VERSION || (MODE_09 ? '0.9.1' : '0.8.0')
const KINDS = [
  'pi',
  'claude',
  'codex',
  'gemini',
  'cursor',
  'devin',
  'agy',
  'cline',
  'omp',
  'mastracode',
  'opencode',
  'copilot',
  'kimi',
  'kiro',
  'droid',
  'amp',
  'grok',
  'hermes',
  'kilo',
  'qodercli',
  'maki',
  ...(MODE_09 ? ['qwen', 'muse'] : []),
]

// --- paths ------------------------------------------------------------------------------

function configDir() {
  if (process.env.XDG_CONFIG_HOME) return path.join(process.env.XDG_CONFIG_HOME, 'herdr')
  return path.join(process.env.HOME || os.homedir(), '.config', 'herdr')
}

const validSession = (n) => /^[A-Za-z0-9._-]{1,64}$/.test(n) && n !== '.' && n !== '..'

function sessionSocket(name) {
  return !name || name === 'default' ? path.join(configDir(), 'herdr.sock') : path.join(configDir(), 'sessions', name, 'herdr.sock')
}

function resolveSocket(explicitSession) {
  if (explicitSession) return { socket: sessionSocket(explicitSession), session: explicitSession }
  if (process.env.HERDR_SOCKET_PATH) return { socket: process.env.HERDR_SOCKET_PATH, session: undefined }
  const env = process.env.HERDR_SESSION
  if (env && env !== 'default' && validSession(env)) return { socket: sessionSocket(env), session: env }
  return { socket: sessionSocket('default'), session: 'default' }
}

// --- socket -----------------------------------------------------------------------------

function canConnect(socket) {
  return new Promise((resolve) => {
    if (!fs.existsSync(socket)) return resolve(false)
    const s = net.connect(socket)
    s.once('connect', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

let counter = 0
function request(socket, method, params = {}) {
  return new Promise((resolve, reject) => {
    const s = net.connect(socket)
    let buf = ''
    s.once('error', reject)
    s.on('connect', () => s.write(`${JSON.stringify({ id: `cli-${process.pid}-${++counter}`, method, params })}\n`))
    s.on('data', (d) => {
      buf += d.toString('utf8')
      const nl = buf.indexOf('\n')
      if (nl >= 0) {
        s.destroy()
        resolve(JSON.parse(buf.slice(0, nl)))
      }
    })
    s.on('close', () => reject(new Error('connection closed without a reply')))
  })
}

function die(code, message, exit = 1) {
  process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`)
  process.exit(exit)
}

/** Every JSON-API command pings first and refuses a server with another protocol. */
async function apiSocket(globalSession) {
  const { socket } = resolveSocket(globalSession)
  let pong
  try {
    pong = await request(socket, 'ping')
  } catch (err) {
    die('server_not_running', `herdr server is not running at ${socket}: ${err.message}`)
  }
  // herdr 0.9 (#3509): client and server of different versions stay connected.
  if (!MODE_09 && pong.result?.protocol !== PROTOCOL) die('protocol_mismatch', `server protocol ${pong.result?.protocol} does not match client protocol ${PROTOCOL}`)
  return socket
}

async function callAndPrint(socket, method, params) {
  const reply = await request(socket, method, params)
  process.stdout.write(`${JSON.stringify(reply)}\n`)
  process.exit(reply.error ? 1 : 0)
}

// --- argument helpers -------------------------------------------------------------------

function takeFlag(args, name) {
  const i = args.indexOf(name)
  if (i < 0) return false
  args.splice(i, 1)
  return true
}

function takeOption(args, name) {
  const i = args.indexOf(name)
  if (i < 0) return undefined
  const v = args[i + 1]
  args.splice(i, 2)
  return v
}

// --- commands ---------------------------------------------------------------------------

async function sessionInfo(name) {
  const isDefault = name === 'default'
  const socket = sessionSocket(name)
  return {
    name,
    default: isDefault,
    running: await canConnect(socket),
    socket_path: socket,
    session_dir: isDefault ? configDir() : path.join(configDir(), 'sessions', name),
  }
}

async function sessionCommand(args) {
  const sub = args.shift()
  if (sub === 'list') {
    const names = ['default']
    const dir = path.join(configDir(), 'sessions')
    if (fs.existsSync(dir)) {
      for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        if (e.isDirectory() && validSession(e.name) && e.name !== 'default') names.push(e.name)
      }
    }
    const sessions = await Promise.all(names.map(sessionInfo))
    if (takeFlag(args, '--json')) process.stdout.write(`${JSON.stringify({ sessions })}\n`)
    else for (const s of sessions) process.stdout.write(`${s.name}${s.default ? ' (default)' : ''}\t${s.running ? 'running' : 'stopped'}\t${s.socket_path}\n`)
    return
  }
  if (sub === 'stop') {
    const name = args.find((a) => !a.startsWith('--')) ?? 'default'
    if (!validSession(name)) die('invalid_session_name', `invalid session name ${name}`)
    const info = await sessionInfo(name)
    if (!info.running) die('session_stop_failed', `session ${name} is not running`)
    await request(info.socket_path, 'server.stop')
    process.stdout.write(`${JSON.stringify({ stopped: true, session: { ...info, running: false } })}\n`)
    return
  }
  die('invalid_request', `unknown session command ${sub}`, 2)
}

async function statusCommand(args, globalSession) {
  if (args[0] !== 'server') die('invalid_request', 'usage: herdr status server [--json]', 2)
  const { socket, session } = resolveSocket(globalSession)
  const running = await canConnect(socket)
  const out = { running, socket, session: session ?? null }
  if (running) {
    try {
      const pong = await request(socket, 'ping')
      Object.assign(out, { version: pong.result.version, protocol: pong.result.protocol })
    } catch {
      out.running = false
    }
  }
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(out)}\n`)
  else process.stdout.write(`herdr server ${out.running ? 'running' : 'not running'} at ${socket}\n`)
}

const AGENT_START_HELP = `Start an agent in an existing pane and wait until it is ready

Usage: herdr agent start [OPTIONS] --kind <KIND> --pane <PANE> <NAME> [-- <ARGS>...]

Arguments:
  <NAME>     Agent name: a lowercase letter, then up to 31 of [a-z0-9_-]
  [ARGS]...  Extra arguments for the agent executable

Options:
      --kind <KIND>          Agent kind [possible values: ${KINDS.join(', ')}]
      --pane <PANE>          Canonical pane id (for example w1:p2)
      --timeout-ms <MS>      Startup timeout in milliseconds [default: 30000]
      --session <SESSION>    Named session
  -h, --help                 Print help
`

const AGENT_USAGE = `Drive named agents

Usage: herdr agent <COMMAND>

Commands:
  start   Start an agent in an existing pane
  attach  Attach to an agent's terminal
  list    List agents
  get     Show one agent

kinds: ${KINDS.join('|')}
`

async function agentCommand(args, globalSession) {
  const sub = args.shift()
  if (!sub || sub === '--help' || sub === '-h') {
    process.stdout.write(AGENT_USAGE)
    process.exit(sub ? 0 : 2)
  }
  if (sub === 'start') {
    if (args.includes('--help') || args.includes('-h')) return void process.stdout.write(AGENT_START_HELP)
    const dd = args.indexOf('--')
    const extra = dd >= 0 ? args.splice(dd).slice(1) : []
    const kind = takeOption(args, '--kind')
    const pane = takeOption(args, '--pane')
    const timeout = Number(takeOption(args, '--timeout-ms') ?? 30000)
    const name = args[0]
    if (!kind || !pane || !name) {
      process.stderr.write(AGENT_START_HELP)
      process.exit(2)
    }
    const socket = await apiSocket(globalSession)
    const started = await request(socket, 'agent.start', { name, kind, pane_id: pane, args: extra, timeout_ms: timeout })
    if (started.error) die(started.error.code, started.error.message)
    // Readiness belongs to the CLI: poll until herdr flips interactive_ready.
    const deadline = Date.now() + timeout
    while (Date.now() < deadline) {
      const got = await request(socket, 'agent.get', { target: name })
      if (got.result?.agent?.interactive_ready) return void process.stdout.write(`${JSON.stringify(got)}\n`)
      if (got.error) die('agent_start_failed', got.error.message)
      await new Promise((r) => setTimeout(r, 200))
    }
    die('agent_start_failed', `agent ${name} did not become ready within ${timeout} ms`)
  }
  if (sub === 'list') return callAndPrint(await apiSocket(globalSession), 'agent.list', {})
  if (sub === 'get') return callAndPrint(await apiSocket(globalSession), 'agent.get', { target: args[0] })
  if (sub === 'attach') {
    const takeover = takeFlag(args, '--takeover')
    return attach(await apiSocket(globalSession), args[0], takeover)
  }
  die('invalid_request', `unknown agent command ${sub}`, 2)
}

async function paneCommand(args, globalSession) {
  const sub = args.shift()
  const socket = await apiSocket(globalSession)
  switch (sub) {
    case 'get':
      return callAndPrint(socket, 'pane.get', { pane_id: args[0] })
    case 'list':
      return callAndPrint(socket, 'pane.list', {})
    case 'send-text':
      return callAndPrint(socket, 'pane.send_text', { pane_id: args[0], text: args[1] ?? '' })
    case 'send-keys':
      return callAndPrint(socket, 'pane.send_keys', { pane_id: args[0], keys: args.slice(1) })
    case 'run':
      return callAndPrint(socket, 'pane.send_input', { pane_id: args[0], text: args[1] ?? '', keys: ['Enter'] })
    case 'close':
      return callAndPrint(socket, 'pane.close', { pane_id: args[0] })
    case 'read': {
      const source = (takeOption(args, '--source') ?? 'recent').replace('recent-unwrapped', 'recent_unwrapped')
      const lines = takeOption(args, '--lines')
      const format = takeOption(args, '--format') ?? 'text'
      const params = { pane_id: args[0], source, format }
      if (lines !== undefined) params.lines = Number(lines)
      return callAndPrint(socket, 'pane.read', params)
    }
    case 'split': {
      const direction = takeOption(args, '--direction') ?? 'down'
      const cwd = takeOption(args, '--cwd')
      const noFocus = takeFlag(args, '--no-focus')
      const params = { target_pane_id: args[0], direction, focus: !noFocus }
      if (cwd) params.cwd = cwd
      return callAndPrint(socket, 'pane.split', params)
    }
    default:
      die('invalid_request', `unknown pane command ${sub}`, 2)
  }
}

async function tabCommand(args, globalSession) {
  const sub = args.shift()
  if (sub !== 'create') die('invalid_request', `unknown tab command ${sub}`, 2)
  const socket = await apiSocket(globalSession)
  const params = { focus: !takeFlag(args, '--no-focus') }
  const ws = takeOption(args, '--workspace')
  const cwd = takeOption(args, '--cwd')
  const label = takeOption(args, '--label')
  if (ws) params.workspace_id = ws
  if (cwd) params.cwd = cwd
  if (label) params.label = label
  return callAndPrint(socket, 'tab.create', params)
}

// --- terminal streaming -----------------------------------------------------------------

function openStream(socket, params) {
  const s = net.connect(socket)
  s.on('connect', () => s.write(`${JSON.stringify({ id: `cli-term-${process.pid}`, method: 'sim.terminal.attach', params })}\n`))
  return s
}

function controlLine(line) {
  let msg
  try {
    msg = JSON.parse(line)
  } catch (err) {
    return `invalid JSON: ${err.message}`
  }
  if (!msg || typeof msg !== 'object') return 'expected an object'
  switch (msg.type) {
    case 'terminal.input':
      if (msg.text !== undefined && msg.bytes !== undefined) return 'terminal.input takes text or bytes, not both'
      if (msg.text !== undefined && typeof msg.text !== 'string') return 'text must be a string'
      if (msg.bytes !== undefined && typeof msg.bytes !== 'string') return 'bytes must be base64'
      return undefined
    case 'terminal.resize':
      if (!(Number.isInteger(msg.cols) && msg.cols > 0 && Number.isInteger(msg.rows) && msg.rows > 0)) return 'cols and rows must be > 0'
      return undefined
    case 'terminal.scroll':
      if (!(Number.isInteger(msg.lines) && msg.lines > 0)) return 'lines must be > 0'
      if (msg.direction !== 'up' && msg.direction !== 'down') return 'direction must be up or down'
      return undefined
    case 'terminal.release':
      return undefined
    default:
      return `unknown message type ${JSON.stringify(msg.type)}`
  }
}

async function terminalCommand(args, globalSession) {
  if (args.shift() !== 'session') die('invalid_request', 'usage: herdr terminal session observe|control <target>', 2)
  const mode = args.shift()
  if (mode !== 'observe' && mode !== 'control') die('invalid_request', 'usage: herdr terminal session observe|control <target>', 2)
  const takeover = takeFlag(args, '--takeover')
  const cols = Number(takeOption(args, '--cols') ?? 120)
  const rows = Number(takeOption(args, '--rows') ?? 40)
  const target = args[0]
  const { socket } = resolveSocket(globalSession)
  if (!(await canConnect(socket))) {
    process.stderr.write(`herdr: cannot connect to ${socket}\n`)
    process.exit(1)
  }
  const s = openStream(socket, { target, mode, takeover, cols, rows })
  let closedPrinted = false
  let buf = ''
  s.on('data', (d) => {
    buf += d.toString('utf8')
    let nl
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl)
      buf = buf.slice(nl + 1)
      if (line.includes('"terminal.closed"')) closedPrinted = true
      process.stdout.write(`${line}\n`)
    }
  })
  s.on('error', (err) => {
    process.stderr.write(`herdr: ${err.message}\n`)
    process.exit(1)
  })
  s.on('close', () => {
    if (!closedPrinted) process.stdout.write(`${JSON.stringify({ reason: null, type: 'terminal.closed' })}\n`)
    process.exit(0)
  })
  if (mode === 'control') {
    const rl = readline.createInterface({ input: process.stdin })
    rl.on('line', (raw) => {
      const line = raw.trim()
      if (!line) return
      const problem = controlLine(line)
      if (problem) return void process.stderr.write(`herdr: terminal session control input ignored: ${problem}\n`)
      s.write(`${line}\n`)
    })
    // EOF on stdin detaches, like terminal.release.
    rl.on('close', () => s.write(`${JSON.stringify({ type: 'terminal.release' })}\n`))
  }
}

/** `agent attach`: raw bytes both ways, for a caller that runs the CLI under a PTY. */
async function attach(socket, target, takeover) {
  const s = openStream(socket, { target, mode: 'control', takeover, cols: process.stdout.columns || 80, rows: process.stdout.rows || 24 })
  let buf = ''
  s.on('data', (d) => {
    buf += d.toString('utf8')
    let nl
    while ((nl = buf.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buf.slice(0, nl))
      buf = buf.slice(nl + 1)
      if (msg.type === 'terminal.frame') process.stdout.write(Buffer.from(msg.bytes, 'base64'))
      else if (msg.type === 'terminal.closed' && msg.reason && msg.reason !== 'detached') process.stderr.write(`\r\nherdr: ${msg.reason}\r\n`)
    }
  })
  s.on('close', () => {
    if (process.stdin.isTTY) process.stdin.setRawMode(false)
    process.exit(0)
  })
  s.on('error', (err) => {
    process.stderr.write(`herdr: ${err.message}\n`)
    process.exit(1)
  })
  if (process.stdin.isTTY) process.stdin.setRawMode(true)
  let prefix = false
  process.stdin.on('data', (d) => {
    // ctrl+b q detaches; ctrl+b ctrl+b sends a literal ctrl+b.
    let out = ''
    for (const ch of d.toString('latin1')) {
      if (prefix) {
        prefix = false
        if (ch === 'q') return void s.write(`${JSON.stringify({ type: 'terminal.release' })}\n`)
        out += ch === '\x02' ? '\x02' : `\x02${ch}`
      } else if (ch === '\x02') prefix = true
      else out += ch
    }
    if (out) s.write(`${JSON.stringify({ type: 'terminal.input', bytes: Buffer.from(out, 'latin1').toString('base64') })}\n`)
  })
  process.stdin.on('end', () => s.write(`${JSON.stringify({ type: 'terminal.release' })}\n`))
  process.stdout.on('resize', () => {
    s.write(`${JSON.stringify({ type: 'terminal.resize', cols: process.stdout.columns, rows: process.stdout.rows })}\n`)
  })
}

// --- entry ------------------------------------------------------------------------------

export async function main(argv) {
  const args = [...argv]
  let globalSession
  // --session goes before the subcommand, as herdr's CLI expects.
  while (args[0]?.startsWith('--')) {
    const flag = args.shift()
    if (flag === '--session') {
      globalSession = args.shift()
      if (!globalSession || !validSession(globalSession)) die('invalid_session_name', `invalid session name ${globalSession}`)
    } else if (flag === '--version' || flag === '-V') {
      process.stdout.write(`herdr ${VERSION}\n`)
      return
    } else die('invalid_request', `unknown flag ${flag}`, 2)
  }
  const cmd = args.shift()
  try {
    switch (cmd) {
      case 'session':
        return await sessionCommand(args)
      case 'status':
        return await statusCommand(args, globalSession)
      case 'agent':
        return await agentCommand(args, globalSession)
      case 'pane':
        return await paneCommand(args, globalSession)
      case 'tab':
        return await tabCommand(args, globalSession)
      case 'terminal':
        return await terminalCommand(args, globalSession)
      default:
        process.stderr.write('usage: herdr [--session NAME] <session|status|agent|pane|tab|terminal> ...\n')
        process.exit(2)
    }
  } catch (err) {
    process.stderr.write(`herdr: ${err.message}\n`)
    process.exit(1)
  }
}
