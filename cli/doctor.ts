import { execFile } from 'node:child_process'
import { createServer } from 'node:net'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_ADDR, resolveDataDir, splitAddr, type BridgeConfig } from '../core/config.ts'
import { herdrRequest } from '../core/herdr/socket.ts'
import { herdrConfigDir, scanNamedSessions, sessionSocketPath } from '../core/herdr/discovery.ts'
import { HERDR_PROTOCOL } from '../core/version.ts'
import { pushCredentialFiles } from './push-files.ts'
import { adminClient, baseOfAddr, baseOfRunFile, readConfig } from './admin-client.ts'
import { hostPort, isLoopbackHost, reachableAddresses, type HostAddress } from './addresses.ts'
import { CliError, bridgeCommand } from './errors.ts'
import { readRunFile, runFileOfDir } from './runfile.ts'

/** One line of the checklist: ✓ fine, ✗ needs the fix, – optional and not set up. */
export interface Check {
  mark: '✓' | '✗' | '–'
  what: string
  fix?: string
}

export interface DoctorOptions {
  dir?: string
  addr?: string
  env?: NodeJS.ProcessEnv
  out?: (line: string) => void
  addresses?: HostAddress[]
}

const MIN_NODE = [20, 19]

/**
 * `bridge doctor`: a checklist with one fix per ✗. Only local: loopback, the herdr sockets and
 * the files it names; no other network request.
 */
export async function doctor(opts: DoctorOptions): Promise<number> {
  const env = opts.env ?? process.env
  const out = opts.out ?? ((l: string) => console.log(l))
  let dataDir = resolveDataDir(opts.dir, env)
  // The address of this data dir's bridge when it runs (`serve --addr` is not saved in the config).
  const running = opts.addr || env.BRIDGE_ADDR ? null : runFileOfDir(dataDir, env)
  const addr = opts.addr ?? (running ? new URL(baseOfRunFile(running)).host : undefined) ?? readConfig(dataDir, env)?.transport.addr ?? env.BRIDGE_ADDR ?? DEFAULT_ADDR
  baseOfAddr(addr, opts.addr ? '--addr' : 'the listen address')
  // `--addr` of a running bridge without --dir: check that bridge, whatever data dir it runs on.
  let adopted = false
  if (opts.addr && !opts.dir) {
    const there = readRunFile(splitAddr(addr).port, env)
    if (there && there.data_dir !== dataDir) {
      dataDir = there.data_dir
      adopted = true
    }
  }
  const config = readConfig(dataDir, env)
  const herdrBin = env.BRIDGE_HERDR_BIN || 'herdr'
  const [herdr, git, sockets, port] = await Promise.all([checkHerdrBin(herdrBin, env), checkGit(env), checkSockets(env), checkPort(addr, config, dataDir, env, adopted)])
  const checks: Check[] = [
    checkNode(),
    herdr,
    ...sockets,
    git,
    ...checkDataDir(dataDir, config),
    port,
    checkPublicUrl(addr, config, opts.addresses ?? reachableAddresses()),
    checkPush(config, dataDir, env),
    // The running bridge's own channels, from its registry (what `bridge status` lists too).
    ...(port.mark === '✓' && port.what.includes(' is held by ') ? await checkChannels(dataDir, addr, env) : []),
  ]
  for (const c of checks) {
    out(`${c.mark} ${c.what}`)
    if (c.fix && c.mark !== '✓') out(`    fix: ${c.fix}`)
  }
  const failed = checks.filter((c) => c.mark === '✗').length
  if (failed) throw new CliError(`${failed} check${failed > 1 ? 's' : ''} failed; each ✗ above has its fix`)
  return 0
}

function checkNode(): Check {
  const [maj, min] = process.versions.node.split('.').map(Number)
  const ok = maj > MIN_NODE[0] || (maj === MIN_NODE[0] && min >= MIN_NODE[1])
  return ok
    ? { mark: '✓', what: `Node ${process.versions.node}` }
    : { mark: '✗', what: `Node ${process.versions.node} is too old`, fix: `install Node ${MIN_NODE.join('.')} or newer (https://nodejs.org)` }
}

function execText(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, timeout: 5000 }, (err, stdout) => resolve(err ? null : String(stdout).trim()))
  })
}

async function checkHerdrBin(bin: string, env: NodeJS.ProcessEnv): Promise<Check> {
  const v = await execText(bin, ['--version'], env)
  if (v === null)
    return {
      mark: '✗',
      what: `herdr binary not found (${bin}${bin === 'herdr' ? ' on PATH' : ', BRIDGE_HERDR_BIN'})`,
      fix: 'install herdr (https://github.com/ogulcancelik/herdr) and put it on PATH, or set BRIDGE_HERDR_BIN',
    }
  return { mark: '✓', what: `herdr binary: ${v.split('\n')[0]} (${bin})` }
}

async function checkGit(env: NodeJS.ProcessEnv): Promise<Check> {
  const v = await execText('git', ['--version'], env)
  return v === null ? { mark: '✗', what: 'git not found', fix: 'install git (the Changes and branch views need it)' } : { mark: '✓', what: v }
}

async function checkSockets(env: NodeJS.ProcessEnv): Promise<Check[]> {
  const named = await scanNamedSessions(env)
  const sessions = ['default', ...named]
  const rows = await Promise.all(
    sessions.map(async (s): Promise<Check | null> => {
      const path = sessionSocketPath(s, env)
      try {
        const pong = await herdrRequest<{ version: string; protocol: number }>(path, 'ping', {}, { timeoutMs: 5000, session: s })
        const older = Number(pong.protocol) < HERDR_PROTOCOL
        return {
          mark: older ? '✗' : '✓',
          what: `herdr session ${s}: herdr ${pong.version}, protocol ${pong.protocol} (${path})`,
          fix: older ? `this bridge was built for protocol ${HERDR_PROTOCOL}; update herdr` : undefined,
        }
      } catch {
        return s === 'default' && !existsSync(path) ? null : { mark: '✗', what: `herdr session ${s}: no answer at ${path}`, fix: 'start herdr, or remove the stale socket' }
      }
    }),
  )
  const found = rows.filter((r): r is Check => !!r)
  if (!found.some((r) => r.mark !== '✗' || /protocol/.test(r.what))) {
    found.unshift({
      mark: '✗',
      what: `no herdr session reachable (looked at ${sessionSocketPath('default', env)} and ${herdrConfigDir(env)}/sessions/*/herdr.sock)`,
      fix: 'install herdr, start it, or set HERDR_SOCKET_PATH',
    })
  }
  return found
}

function mode(path: string): number | null {
  try {
    return statSync(path).mode & 0o777
  } catch {
    return null
  }
}

function checkDataDir(dir: string, config: BridgeConfig | null): Check[] {
  const m = mode(dir)
  if (m === null) return [{ mark: '–', what: `data dir ${dir} does not exist yet`, fix: `\`${bridgeCommand('serve')}\` creates it` }]
  const checks: Check[] = []
  checks.push(
    m & 0o077 ? { mark: '✗', what: `data dir ${dir} is open to others (mode ${m.toString(8)})`, fix: `chmod 700 ${dir}` } : { mark: '✓', what: `data dir ${dir} (mode 700)` },
  )
  if (!config) checks.push({ mark: '–', what: `no config.json in ${dir} yet`, fix: `\`${bridgeCommand('serve')}\` creates it` })
  const loose = readdirSync(dir).filter((f) => f.endsWith('.json') && ((mode(join(dir, f)) ?? 0) & 0o077) !== 0)
  if (loose.length) checks.push({ mark: '✗', what: `readable by others: ${loose.join(', ')}`, fix: `chmod 600 ${loose.map((f) => join(dir, f)).join(' ')}` })
  else if (config) checks.push({ mark: '✓', what: 'config and device files are private (mode 600)' })
  return checks
}

/**
 * Free, or held by the bridge of this data dir: the run file a bridge leaves names its data dir
 * (as `pair` finds it), else the admin token decides. Binds loopback only.
 */
async function checkPort(addr: string, config: BridgeConfig | null, dataDir: string, env: NodeJS.ProcessEnv, adopted = false): Promise<Check> {
  const { host, port } = splitAddr(addr)
  const free = await new Promise<boolean | string>((resolve) => {
    const srv = createServer()
    srv.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE' ? false : (err.code ?? err.message)))
    srv.listen(port, host, () => srv.close(() => resolve(true)))
  })
  if (free === true) return { mark: '✓', what: `${addr} is free` }
  if (free !== false) return { mark: '✗', what: `cannot listen on ${addr} (${free})`, fix: 'choose another address with --addr' }
  const other = 'choose another address with --addr'
  const run = readRunFile(port, env)
  if (run) {
    if (run.data_dir === dataDir)
      return {
        mark: '✓',
        what: adopted
          ? `${addr} is held by the bridge of data dir ${dataDir} (pid ${run.pid}, running); this checklist is of that data dir`
          : `${addr} is held by this bridge (pid ${run.pid}, running)`,
      }
    return {
      mark: '✗',
      what: `${addr} is held by another bridge (pid ${run.pid}, data dir ${run.data_dir})`,
      fix: `to check that one: \`${bridgeCommand(`doctor --dir ${run.data_dir}`)}\`; else ${other}`,
    }
  }
  if (!config)
    return {
      mark: '✗',
      what: `${addr} is taken, and data dir ${dataDir} is not initialised (no config.json), so nothing tells whether the program there is its bridge`,
      fix: `pass the --dir of the bridge running there, or ${other}`,
    }
  try {
    const res = await fetch(`${baseOfAddr(addr)}/admin/status`, { headers: { authorization: `Bearer ${config.admin_token}` }, signal: AbortSignal.timeout(3000) })
    await res.body?.cancel()
    if (res.ok) return { mark: '✓', what: `${addr} is held by this bridge (running)` }
    if (res.status === 401) return { mark: '✗', what: `${addr} is held by another bridge (it refuses this data dir's admin token)`, fix: `pass that bridge’s --dir, or ${other}` }
  } catch {}
  return { mark: '✗', what: `${addr} is held by another program`, fix: `stop it, or ${other}` }
}

function checkPublicUrl(addr: string, config: BridgeConfig | null, addresses: HostAddress[]): Check {
  const { host, port } = splitAddr(addr)
  const publicUrl = config?.transport.public_url
  const suggest = addresses[0]
    ? `\`${bridgeCommand(`serve --addr ${hostPort(addresses[0].address, port)}`)}\` (${addresses[0].kind}), or set transport.public_url`
    : 'join a tailnet or LAN, then listen there with --addr, or set transport.public_url'
  if (publicUrl) {
    const h = new URL(publicUrl).hostname
    return isLoopbackHost(h)
      ? { mark: '✗', what: `public URL ${publicUrl} is a loopback address: a phone cannot reach it`, fix: suggest }
      : { mark: '✓', what: `public URL ${publicUrl}` }
  }
  if (host === '0.0.0.0' || host === '::') {
    return addresses.length
      ? { mark: '✓', what: `listens on every address; a phone can use http://${hostPort(addresses[0].address, port)}` }
      : { mark: '✗', what: 'this machine has no address a phone can reach', fix: suggest }
  }
  if (isLoopbackHost(host)) return { mark: '✗', what: `http://${hostPort(host, port)} is a loopback address: a phone cannot reach it`, fix: suggest }
  return { mark: '✓', what: `phones reach it at http://${hostPort(host, port)}` }
}

/**
 * The alert channels as the running bridge of this data dir reports them (`/admin/status`, on
 * loopback): the registry `bridge status` and `bridge notify test` read too, so the three agree.
 */
async function checkChannels(dataDir: string, addr: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  try {
    const s = await adminClient({ dir: dataDir, addr, env }).call<{ alerts?: { channel: string; configured: boolean; detail: string }[] }>('GET', '/admin/status')
    return (s.alerts ?? []).map((a): Check => ({ mark: a.configured ? '✓' : '–', what: `alert channel ${a.channel}: ${a.detail}` }))
  } catch (err) {
    return [{ mark: '–', what: `alert channels: the running bridge did not say (${(err as Error).message})` }]
  }
}

/** Looks only for the files; the metadata server would be a network request. */
function checkPush(config: BridgeConfig | null, dataDir: string, env: NodeJS.ProcessEnv): Check {
  const { files, found } = pushCredentialFiles(config, dataDir, env)
  if (found) return { mark: '✓', what: `push credentials: ${found} (\`${bridgeCommand('push status')}\` checks they may send)` }
  return {
    mark: '–',
    what: "no FCM credentials (optional: only the mobile app's FCM alerts need them; Web Push, ntfy and webhooks do not)",
    fix: `\`${bridgeCommand('push login --project <project-id>')}\` or save a service-account key as ${files[0]}`,
  }
}
