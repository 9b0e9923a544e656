import { spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { resolveDataDir } from '../core/config.ts'
import { baseOfAddr } from './admin-client.ts'
import { CliError, bridgeCommand } from './errors.ts'

/**
 * `bridge service …`: a systemd user unit on Linux (restart on failure, logs in the journal)
 * or a launchd agent on macOS (kept alive, logs in ~/Library/Logs/herdr-bridge.log).
 */

const UNIT = 'herdr-bridge.service'
const LABEL = 'dev.herdr-bridge'

export interface ServiceSpec {
  /** node, the bin script, then `serve …`. */
  argv: string[]
  /** PATH for the service: herdr and git must be found there (service managers start with a bare one). */
  path: string
  /** HERDR_SOCKET_PATH and BRIDGE_* of the installing shell, when set: the service sees what `serve` would here. */
  env: Record<string, string>
  dataDir: string
  home: string
}

/**
 * What the service runs: this node, this install's bin script by absolute path (in a clone it
 * runs the compiled CLI, rebuilt when a source changes), with --addr/--dir pinned. A copy that
 * npx unpacked into its cache is refused: npm may delete that folder under a running service.
 */
export function serviceSpec(opts: { addr?: string; dir?: string; env?: NodeJS.ProcessEnv; root?: string }): ServiceSpec {
  const env = opts.env ?? process.env
  if (opts.addr) baseOfAddr(opts.addr)
  const dataDir = resolveDataDir(opts.dir, env)
  const root = realpathSync(opts.root ?? packageRoot())
  if (/[\\/]_npx[\\/]/.test(root))
    throw new CliError(
      `this bridge runs from npx's temporary folder (${root}), which npm may remove under a running service; install it with \`npm install -g herdr-bridge\` (or use a clone) and run \`bridge service install\` from there`,
    )
  const bin = join(root, 'cli', 'bin.mjs')
  const argv = [process.execPath, bin, 'serve', '--dir', dataDir, ...(opts.addr ? ['--addr', opts.addr] : [])]
  return { argv, path: env.PATH ?? '/usr/local/bin:/usr/bin:/bin', env: carriedEnv(env), dataDir, home: env.HOME ?? homedir() }
}

/** BRIDGE_DIR is left out: the unit pins the data dir with --dir already. A value with a line break cannot be written into a unit. */
function carriedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const keys = Object.keys(env)
    .filter((k) => (k === 'HERDR_SOCKET_PATH' || k.startsWith('BRIDGE_')) && k !== 'BRIDGE_DIR' && env[k] && !/[\r\n]/.test(env[k]!))
    .sort()
  return Object.fromEntries(keys.map((k) => [k, env[k]!]))
}

/** The folder holding package.json, from the sources (cli/) or the compiled layout (dist/cli/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir)
  return dir
}

/** systemd's quoting: each word in double quotes, with \, " and % escaped. */
function systemdWord(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) && !w.includes('%') ? w : `"${w.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%')}"`
}

export function systemdUnit(s: ServiceSpec): string {
  const env = (k: string, v: string) => `Environment=${systemdWord(`${k}=${v}`)}`
  return [
    '[Unit]',
    'Description=herdr-bridge: watch and drive herdr agents from phones and browsers',
    'Documentation=https://www.npmjs.com/package/herdr-bridge',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${s.argv.map(systemdWord).join(' ')}`,
    env('PATH', s.path),
    env('NODE_ENV', 'production'),
    ...Object.entries(s.env).map(([k, v]) => env(k, v)),
    'Restart=on-failure',
    'RestartSec=5',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n')
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

export function launchdPlist(s: ServiceSpec): string {
  const log = join(s.home, 'Library', 'Logs', 'herdr-bridge.log')
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>${LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${s.argv.map((a) => `    <string>${xml(a)}</string>`).join('\n')}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
${Object.entries({ PATH: s.path, ...s.env })
  .map(([k, v]) => `    <key>${xml(k)}</key><string>${xml(v)}</string>`)
  .join('\n')}
  </dict>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>
  <key>StandardOutPath</key><string>${xml(log)}</string>
  <key>StandardErrorPath</key><string>${xml(log)}</string>
</dict>
</plist>
`
}

const isMac = () => process.platform === 'darwin'

function unitPath(env: NodeJS.ProcessEnv = process.env): string {
  if (isMac()) return join(env.HOME ?? homedir(), 'Library', 'LaunchAgents', `${LABEL}.plist`)
  const config = env.XDG_CONFIG_HOME || join(env.HOME ?? homedir(), '.config')
  return join(config, 'systemd', 'user', UNIT)
}

function supported(): void {
  if (process.platform !== 'linux' && !isMac())
    throw new CliError(`bridge service supports Linux (systemd) and macOS (launchd), not ${process.platform}; run \`${bridgeCommand('serve')}\` under your own supervisor`)
}

const noSession = () =>
  new CliError(
    `no ${isMac() ? 'launchd' : 'systemd'} user session here; print the unit with \`${bridgeCommand('service install --print')}\` and install it by hand, or run \`${bridgeCommand('serve')}\` under your own supervisor`,
  )

/**
 * Runs a service-manager command. Its stdout goes to the terminal; its stderr too, unless
 * `capture` keeps it for our own one-line error. A missing binary means no session to manage.
 */
function run(cmd: string, args: string[], opts: { quiet?: boolean; capture?: boolean } = {}): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: opts.quiet ? 'ignore' : ['inherit', 'inherit', opts.capture ? 'pipe' : 'inherit'] })
    let stderr = ''
    child.stderr?.on('data', (d) => (stderr += d))
    child.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? noSession() : err))
    child.once('close', (code) => resolve({ code: code ?? 1, stderr }))
  })
}

async function must(cmd: string, args: string[]): Promise<void> {
  const { code, stderr } = await run(cmd, args, { capture: true })
  if (code === 0) return
  const why = stderr.trim().split('\n').pop()?.trim()
  throw new CliError(`\`${cmd} ${args.join(' ')}\` failed (exit ${code})${why ? `: ${why}` : ''}`)
}

/**
 * Whether systemctl reaches this login's user manager: a container, a root shell or an SSH
 * login without lingering has none, and every other systemctl call would fail after we wrote.
 */
async function requireSession(): Promise<void> {
  if (isMac()) return
  const { code } = await run('systemctl', ['--user', 'show-environment'], { quiet: true })
  if (code !== 0) throw noSession()
}

export async function serviceInstall(opts: { addr?: string; dir?: string; print?: boolean }): Promise<void> {
  const spec = serviceSpec(opts)
  const text = isMac() ? launchdPlist(spec) : systemdUnit(spec)
  if (opts.print) return void process.stdout.write(text)
  supported()
  await requireSession()
  const file = unitPath()
  const before = existsSync(file) ? readFileSync(file) : null
  mkdirSync(dirname(file), { recursive: true })
  // 0600: the unit may carry tokens from the environment (BRIDGE_NTFY_TOKEN, BRIDGE_WEBHOOK_SECRET).
  // writeFileSync's mode applies only to a new file: a reinstall over a looser unit sets it too.
  writeFileSync(file, text, { mode: 0o600 })
  chmodSync(file, 0o600)
  try {
    if (isMac()) {
      const domain = `gui/${userInfo().uid}`
      await run('launchctl', ['bootout', `${domain}/${LABEL}`], { quiet: true })
      await must('launchctl', ['bootstrap', domain, file])
    } else {
      await must('systemctl', ['--user', 'daemon-reload'])
      await must('systemctl', ['--user', 'enable', '--now', UNIT])
    }
  } catch (err) {
    // Leave the machine as it was: a unit that was never started is not "installed".
    if (before) writeFileSync(file, before, { mode: 0o600 })
    else rmSync(file, { force: true })
    if (!isMac()) await run('systemctl', ['--user', 'daemon-reload'], { quiet: true }).catch(() => {})
    throw err
  }
  console.log(`wrote ${file}`)
  // Without lingering, a user unit stops at logout; say how to keep it running.
  if (!isMac()) console.log(`started ${UNIT}; to keep it running after logout: loginctl enable-linger ${userInfo().username}`)
  else console.log(`started ${LABEL}`)
  console.log(`check it with \`${bridgeCommand('service status')}\` and \`${bridgeCommand('status')}\`; logs: \`${bridgeCommand('service logs')}\``)
}

export async function serviceUninstall(): Promise<void> {
  supported()
  const file = unitPath()
  if (!existsSync(file)) throw new CliError(`no service installed (${file} does not exist)`)
  await requireSession()
  if (isMac()) await run('launchctl', ['bootout', `gui/${userInfo().uid}/${LABEL}`], { capture: true })
  else await must('systemctl', ['--user', 'disable', '--now', UNIT])
  rmSync(file, { force: true })
  if (!isMac()) await must('systemctl', ['--user', 'daemon-reload'])
  console.log(`removed ${file}`)
}

/** The service manager's own report; its exit code is ours (systemctl: 3 when stopped). */
export async function serviceStatus(): Promise<number> {
  supported()
  if (!existsSync(unitPath())) throw new CliError(`no service installed; install it with \`${bridgeCommand('service install')}\``)
  await requireSession()
  const r = isMac() ? await run('launchctl', ['print', `gui/${userInfo().uid}/${LABEL}`]) : await run('systemctl', ['--user', 'status', '--no-pager', UNIT])
  return r.code
}

export async function serviceLogs(opts: { follow?: boolean; lines?: string }): Promise<void> {
  supported()
  const n = opts.lines ?? '100'
  if (!/^\d+$/.test(n)) throw new CliError(`bad --lines ${JSON.stringify(n)}: want a number`)
  await requireSession()
  const { code } = isMac()
    ? await run('tail', ['-n', n, ...(opts.follow ? ['-f'] : []), join(homedir(), 'Library', 'Logs', 'herdr-bridge.log')])
    : await run('journalctl', ['--user', '-u', UNIT, '-n', n, '--no-pager', ...(opts.follow ? ['-f'] : [])])
  if (code !== 0) process.exitCode = code
}
