import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { resolveDataDir } from '../core/config.ts'
import { baseOfAddr } from './admin-client.ts'
import { CliError } from './errors.ts'

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
  dataDir: string
  home: string
}

/** What the service runs: this node, this install's bin script, with --addr/--dir pinned. */
export function serviceSpec(opts: { addr?: string; dir?: string; env?: NodeJS.ProcessEnv }): ServiceSpec {
  const env = opts.env ?? process.env
  if (opts.addr) baseOfAddr(opts.addr)
  const dataDir = resolveDataDir(opts.dir, env)
  const bin = realpathSync(join(packageRoot(), 'cli', 'bin.mjs'))
  const argv = [process.execPath, bin, 'serve', '--dir', dataDir, ...(opts.addr ? ['--addr', opts.addr] : [])]
  return { argv, path: env.PATH ?? '/usr/local/bin:/usr/bin:/bin', dataDir, home: env.HOME ?? homedir() }
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
  <dict><key>PATH</key><string>${xml(s.path)}</string></dict>
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
    throw new CliError(`bridge service supports Linux (systemd) and macOS (launchd), not ${process.platform}; run \`bridge serve\` under your own supervisor`)
}

/** Runs a service-manager command with the terminal attached; a missing binary is one line. */
function run(cmd: string, args: string[], quiet = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: quiet ? 'ignore' : 'inherit' })
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT'
          ? new CliError(
              `${cmd} not found: this machine has no ${isMac() ? 'launchd' : 'systemd'} user session; print the unit with \`bridge service install --print\` and run \`bridge serve\` under your own supervisor`,
            )
          : err,
      ),
    )
    child.once('exit', (code) => resolve(code ?? 1))
  })
}

async function must(cmd: string, args: string[]): Promise<void> {
  const code = await run(cmd, args)
  if (code !== 0) throw new CliError(`\`${cmd} ${args.join(' ')}\` failed (exit ${code}); see its message above`)
}

export async function serviceInstall(opts: { addr?: string; dir?: string; print?: boolean }): Promise<void> {
  const spec = serviceSpec(opts)
  const text = isMac() ? launchdPlist(spec) : systemdUnit(spec)
  if (opts.print) return void process.stdout.write(text)
  supported()
  const file = unitPath()
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text, { mode: 0o644 })
  console.log(`wrote ${file}`)
  if (isMac()) {
    const domain = `gui/${userInfo().uid}`
    await run('launchctl', ['bootout', `${domain}/${LABEL}`], true)
    await must('launchctl', ['bootstrap', domain, file])
  } else {
    await must('systemctl', ['--user', 'daemon-reload'])
    await must('systemctl', ['--user', 'enable', '--now', UNIT])
    // Without lingering, a user unit stops at logout; say how to keep it running.
    console.log(`started ${UNIT}; to keep it running after logout: loginctl enable-linger ${userInfo().username}`)
  }
  console.log('check it with `bridge service status` and `bridge status`; logs: `bridge service logs`')
}

export async function serviceUninstall(): Promise<void> {
  supported()
  const file = unitPath()
  if (!existsSync(file)) throw new CliError(`no service installed (${file} does not exist)`)
  if (isMac()) await run('launchctl', ['bootout', `gui/${userInfo().uid}/${LABEL}`])
  else await must('systemctl', ['--user', 'disable', '--now', UNIT])
  rmSync(file, { force: true })
  if (!isMac()) await must('systemctl', ['--user', 'daemon-reload'])
  console.log(`removed ${file}`)
}

export async function serviceStatus(): Promise<number> {
  supported()
  if (!existsSync(unitPath())) throw new CliError(`no service installed; install it with \`bridge service install\``)
  return isMac() ? run('launchctl', ['print', `gui/${userInfo().uid}/${LABEL}`]) : run('systemctl', ['--user', 'status', '--no-pager', UNIT])
}

export async function serviceLogs(opts: { follow?: boolean; lines?: string }): Promise<void> {
  supported()
  const n = opts.lines ?? '100'
  if (!/^\d+$/.test(n)) throw new CliError(`bad --lines ${JSON.stringify(n)}: want a number`)
  const code = isMac()
    ? await run('tail', ['-n', n, ...(opts.follow ? ['-f'] : []), join(homedir(), 'Library', 'Logs', 'herdr-bridge.log')])
    : await run('journalctl', ['--user', '-u', UNIT, '-n', n, '--no-pager', ...(opts.follow ? ['-f'] : [])])
  if (code !== 0) process.exitCode = code
}
