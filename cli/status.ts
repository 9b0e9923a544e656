import { adminClient, baseOfRunFile, CliError, reachable, type TargetOptions } from './admin-client.ts'
import { bridgeCommand } from './errors.ts'
import { listRunFiles, type RunFile } from './runfile.ts'

export interface StatusOptions extends TargetOptions {
  json?: boolean
  out?: (line: string) => void
}

interface DaemonStatus {
  version: string
  api_version: number
  pid: number
  uptime_s: number
  listen: { addr: string; url: string }
  public_url: string
  data_dir: string
  herdr: { expected_protocol: number; sessions: { name: string; socket: string; state: string; answers: boolean; herdr_version?: string; protocol?: number; error?: string }[] }
  devices: number
  /** A revocation in force but not yet saved (the daemon retries). */
  devices_unsaved?: string
  /** Absent from bridges older than this CLI. */
  alerts?: { channel: string; loaded: boolean; configured: boolean; detail: string }[]
}

/**
 * `bridge status`: exit 0 only when the daemon answers and at least one herdr session does.
 * With --json the same facts as one object (also on failure, so scripts can read why). Without
 * --dir, --addr or --url it also lists every bridge running for this user (from the run files).
 */
export async function status(opts: StatusOptions): Promise<number> {
  const out = opts.out ?? ((l: string) => console.log(l))
  const admin = adminClient(opts)
  const base = admin.base
  const bridges = opts.dir || opts.addr || opts.url ? null : listRunFiles(opts.env ?? process.env)
  const listed = bridges ? { bridges: bridges.map((b) => ({ url: baseOfRunFile(b), pid: b.pid, data_dir: b.data_dir })) } : {}
  if (!(await reachable(base, 3000, admin.target))) {
    if (opts.json) {
      out(JSON.stringify({ running: false, url: base, data_dir: admin.target.dataDir, ...listed }, null, 2))
      return 1
    }
    if (bridges?.length) listBridges(bridges, out)
    throw admin.notRunning()
  }
  const s = await admin.call<DaemonStatus>('GET', '/admin/status')
  const live = s.herdr.sessions.filter((x) => x.answers)
  const ok = live.length > 0
  if (opts.json) {
    out(JSON.stringify({ running: true, url: base, ...s, ok, ...listed }, null, 2))
    return ok ? 0 : 1
  }
  const rows: [string, string][] = [
    ['bridge', `running at ${base} (pid ${s.pid}), version ${s.version} (API ${s.api_version}), up ${duration(s.uptime_s)}`],
    ['listen', `${s.listen.addr} (${s.listen.url})`],
    ['public URL', s.public_url],
    ['data dir', s.data_dir],
    ['devices', `${s.devices} paired${s.devices_unsaved ? `; ✗ ${s.devices_unsaved}` : ''}`],
  ]
  const w = Math.max(...rows.map((r) => r[0].length))
  for (const [k, v] of rows) out(`${k.padEnd(w)}  ${v}`)
  if (s.alerts) {
    out(`alert channels (\`${bridgeCommand('notify test')}\` sends a test alert):`)
    const cw = Math.max(...s.alerts.map((a) => a.channel.length))
    for (const a of s.alerts) out(`  ${a.configured ? '✓' : '–'} ${a.channel.padEnd(cw)}  ${a.detail}`)
  } else out('alert channels: not reported by this bridge (it is older than this command)')
  out(`herdr sessions (this bridge speaks protocol ${s.herdr.expected_protocol}):`)
  for (const x of s.herdr.sessions) {
    const what = x.answers ? `herdr ${x.herdr_version}, protocol ${x.protocol}, ${x.state}` : `not answering (${x.error})`
    out(`  ${x.answers ? '✓' : '✗'} ${x.name}  ${what}  ${x.socket}`)
  }
  if (bridges && bridges.some((b) => b.pid !== s.pid)) listBridges(bridges, out)
  if (!ok) throw new CliError(`no herdr session answers: install herdr, start it, or set HERDR_SOCKET_PATH (see \`${bridgeCommand('doctor')}\`)`)
  return 0
}

/** One line per running bridge: where it answers, its pid and data dir, and how to ask it. */
function listBridges(bridges: RunFile[], out: (line: string) => void): void {
  out(`bridges running for this user (${bridges.length}):`)
  for (const b of bridges) out(`  ${baseOfRunFile(b)}  pid ${b.pid}  data dir ${b.data_dir}  (\`${bridgeCommand(`status --dir ${b.data_dir}`)}\`)`)
}

function duration(s: number): string {
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  const h = Math.floor(s / 3600)
  return h < 48 ? `${h} h ${Math.floor((s % 3600) / 60)} min` : `${Math.floor(h / 24)} days`
}
