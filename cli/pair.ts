import { adminClient, CliError, reachable, type TargetOptions } from './admin-client.ts'
import { hostPort, isLoopbackHost, reachableAddresses, type HostAddress } from './addresses.ts'
import { bridgeCommand } from './errors.ts'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { updateStoredConfig } from '../core/config.ts'

export interface PairOptions extends Omit<TargetOptions, 'url'> {
  /** The URL put in the code (what the phone uses), instead of the bridge's own. */
  url?: string
  json?: boolean
  /** QR of the JSON payload `{url, code}` (the reference mobile app) instead of the link. */
  app?: boolean
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

/** The web app's pairing link: any phone camera opens it, and the app fills the code in. */
export const pairLink = (url: string, code: string) => `${url}/#/pair?code=${encodeURIComponent(code)}`

/**
 * `bridge pair`: a one-time code and a QR for a new device, warning when a phone cannot use it.
 * The QR holds a link to the web app by default; `--app` holds the JSON a mobile client scans.
 */
export async function pair(opts: PairOptions): Promise<void> {
  const out = opts.out ?? ((l: string) => console.log(l))
  const warn = opts.warn ?? ((l: string) => console.error(l))
  const url = opts.url ? phoneUrl(opts.url) : undefined
  const admin = adminClient({ dir: opts.dir, addr: opts.addr, env: opts.env })
  // --url is what the phone uses, never where this command looks: say so when the look fails.
  if (url && !(await reachable(admin.base, 3000, admin.target))) throw new CliError(`${admin.notRunning().message}; --url only sets the URL in the code: pass the daemon's --addr`)
  const role = pairRole(opts.role)
  const r = await admin.call<{ code: string; url: string }>('POST', '/admin/pairing', role ? { role } : undefined)
  if (url) rememberPairUrl(admin.dataDir, url, warn)
  const payload = { url: url ?? r.url, code: r.code }
  const line = JSON.stringify(payload)
  const link = pairLink(payload.url, payload.code)
  const host = new URL(payload.url).hostname
  if (isLoopbackHost(host)) loopbackWarning(payload.url, opts.addresses ?? reachableAddresses(), warn)
  if (opts.json) return void out(line)
  // The QR encoder loads only here: --json and the other commands never need it.
  out((await import('uqr')).renderUnicodeCompact(opts.app ? line : link))
  out(
    [
      '',
      opts.app
        ? 'Scan it with a mobile client that speaks this API, or enter by hand:'
        : `Scan it with the phone's camera to open the web app with the code filled in (\`${bridgeCommand('pair --app')}\` makes the mobile app's QR), or open:`,
      ...(opts.app ? [] : [`  ${link}`, 'or enter by hand:']),
      `  url:  ${payload.url}`,
      `  code: ${payload.code}   (valid 5 minutes, one use)`,
      '',
      line,
    ].join('\n'),
  )
}

/**
 * Keeps a `--url` in the data dir's config (`transport.pair_urls`): the bridge then accepts
 * requests carrying its host (a tailnet name, a tunnel) without a setting of its own; the running
 * bridge reads the list again when it meets a host it does not know (core/host-check.ts).
 */
export function rememberPairUrl(dataDir: string, url: string, warn: (l: string) => void): void {
  const path = join(dataDir, 'config.json')
  // Only into a config the bridge made: a token from BRIDGE_ADMIN_TOKEN may come with no data dir here.
  if (!existsSync(path)) return warn(`warning: ${path} does not exist, so ${url} is not kept; allow its host with transport.allowed_hosts on the bridge`)
  try {
    updateStoredConfig(path, (file) => {
      const t = (file.transport ??= {}) as Record<string, unknown>
      const list: string[] = Array.isArray(t.pair_urls) ? t.pair_urls.filter((u: unknown): u is string => typeof u === 'string') : []
      if (list.includes(url)) return
      // The newest last; a long-lived bridge paired through many tunnels keeps the latest few.
      t.pair_urls = [...list, url].slice(-MAX_PAIR_URLS)
    })
  } catch (err) {
    warn(`warning: could not keep ${url} in ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); allow its host with transport.allowed_hosts`)
  }
}

const MAX_PAIR_URLS = 20

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
