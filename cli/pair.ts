import { adminClient, CliError, reachable, type TargetOptions } from './admin-client.ts'
import { hostPort, isLoopbackHost, reachableAddresses, type HostAddress } from './addresses.ts'
import { bridgeCommand } from './errors.ts'

export interface PairOptions extends Omit<TargetOptions, 'url'> {
  /** The URL put in the code (what the phone uses), instead of the bridge's own. */
  url?: string
  json?: boolean
  /** The role the paired device gets: viewer, default (when absent) or owner. */
  role?: string
  out?: (line: string) => void
  warn?: (line: string) => void
  addresses?: HostAddress[]
}

/** `--role`: checked here so a typo never issues a code; absent means the bridge's default role. */
export function pairRole(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined
  if (!['viewer', 'default', 'owner'].includes(raw)) throw new CliError(`bad --role ${JSON.stringify(raw)}: want viewer (watch only), default or owner (also manages devices)`)
  return raw
}

/** `bridge pair`: a one-time code and QR for a new device, warning when a phone cannot use it. */
export async function pair(opts: PairOptions): Promise<void> {
  const out = opts.out ?? ((l: string) => console.log(l))
  const warn = opts.warn ?? ((l: string) => console.error(l))
  const url = opts.url ? phoneUrl(opts.url) : undefined
  const admin = adminClient({ dir: opts.dir, addr: opts.addr, env: opts.env })
  // --url is what the phone uses, never where this command looks: say so when the look fails.
  if (url && !opts.addr && !(await reachable(admin.base))) throw new CliError(`${admin.notRunning().message}; --url only sets the URL in the code: pass the daemon's --addr`)
  const role = pairRole(opts.role)
  const r = await admin.call<{ code: string; url: string }>('POST', '/admin/pairing', role ? { role } : undefined)
  const payload = { url: url ?? r.url, code: r.code }
  const line = JSON.stringify(payload)
  const host = new URL(payload.url).hostname
  if (isLoopbackHost(host)) loopbackWarning(payload.url, opts.addresses ?? reachableAddresses(), warn)
  if (opts.json) return void out(line)
  // The QR encoder loads only here: --json and the other commands never need it.
  out((await import('uqr')).renderUnicodeCompact(line))
  out(
    [
      '',
      "Scan it with the built-in web app's camera pairing (Scan QR code) or a mobile client that",
      'speaks this API, or enter by hand:',
      `  url:  ${payload.url}`,
      `  code: ${payload.code}   (valid 5 minutes, one use)`,
      '',
      line,
    ].join('\n'),
  )
}

function phoneUrl(raw: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new CliError(`bad --url ${JSON.stringify(raw)}: want the URL a phone uses, e.g. http://100.101.102.103:8787`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CliError(`bad --url ${JSON.stringify(raw)}: want an http:// or https:// URL`)
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`
}

function loopbackWarning(url: string, addresses: HostAddress[], warn: (l: string) => void): void {
  const port = new URL(url).port || '8787'
  warn(`warning: the code points at ${url}, a loopback address: a phone cannot reach it.`)
  if (addresses.length) {
    warn('Listen on an address the phone can reach, then pair again:')
    const w = Math.max(...addresses.map((a) => a.address.length))
    for (const a of addresses) warn(`  ${a.address.padEnd(w)}  ${a.kind.padEnd(7)}  ${bridgeCommand(`serve --addr ${hostPort(a.address, port)}`)}`)
  } else warn('This machine has no network address besides loopback; join a tailnet or a LAN first.')
  warn(`Or set transport.public_url (BRIDGE_PUBLIC_URL) to a URL that reaches this bridge (e.g. from \`tailscale serve\`), or pass \`${bridgeCommand('pair --url <url>')}\`.`)
}
