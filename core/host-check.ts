/**
 * The Host header check. A page on another site can make a browser send requests to the bridge
 * by pointing its own name at the bridge's address (DNS rebinding); such requests carry that
 * site's name as Host. Allowed: IP literals, `localhost`, this machine's host name, the listen
 * address, the host of `transport.public_url`, the hosts of the URLs given to `bridge pair --url`
 * (`transport.pair_urls`, read live: pairing adds to it while the bridge runs), and
 * `transport.allowed_hosts` / BRIDGE_ALLOWED_HOSTS (exact names, or `*.example.com` for any
 * subdomain). A request without a Host header (HTTP/1.0) is let through: browsers always send one.
 */
import { readFileSync, statSync } from 'node:fs'
import { isIP } from 'node:net'
import { hostname } from 'node:os'
import type { BridgeConfig } from './config.ts'
import { errorLine } from './respond.ts'

/** The host part of a Host header, lower case, without port or IPv6 brackets. */
export function hostOf(header: string): string {
  const h = header.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined)
  const colon = h.lastIndexOf(':')
  return (colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h).replace(/\.$/, '')
}

export function createHostCheck(config: BridgeConfig) {
  const names = new Set<string>(['localhost'])
  const suffixes: string[] = []
  const add = (raw: string) => {
    const n = raw.trim().toLowerCase().replace(/\.$/, '')
    if (!n) return
    if (n.startsWith('*.')) suffixes.push(n.slice(1))
    else names.add(hostOf(n))
  }
  const machine = hostname()
  if (machine) {
    add(machine)
    add(`${machine}.local`)
  }
  add(config.transport.addr.replace(/:\d+$/, ''))
  if (config.transport.public_url) {
    try {
      add(new URL(config.transport.public_url).hostname)
    } catch {
      // not a URL: nothing to add
    }
  }
  for (const h of config.transport.allowed_hosts) add(h)
  /**
   * Hosts of transport.pair_urls. `bridge pair --url` appends to the list in config.json while the
   * bridge runs, so a host not allowed otherwise makes the file be read again when it changed.
   */
  let paired = new Set((config.transport.pair_urls ?? []).map(urlHost).filter(Boolean))
  let seen = mtimeOf(config.config_path)
  const pairHosts = () => {
    const now = mtimeOf(config.config_path)
    if (now !== seen) {
      seen = now
      const urls = storedPairUrls(config.config_path)
      if (urls) {
        config.transport.pair_urls = urls
        paired = new Set(urls.map(urlHost).filter(Boolean))
      }
    }
    return paired
  }
  return {
    /** A bracketed Host that is not `[IPv6 literal]` with an optional port: not host syntax at all (400). */
    malformed(header: string | null | undefined): boolean {
      const h = header?.trim()
      if (!h?.startsWith('[')) return false
      const m = /^\[([^\]]*)\](?::\d{1,5})?$/.exec(h)
      return !m || isIP(m[1]) !== 6
    },
    allows(header: string | null | undefined): boolean {
      if (header === null || header === undefined) return true
      const h = hostOf(header)
      if (isIP(h) || names.has(h) || h.endsWith('.localhost')) return true
      return suffixes.some((s) => h.endsWith(s) && h.length > s.length) || pairHosts().has(h)
    },
    badHost: errorLine('bad Host header: want a name, an IPv4 address or a bracketed IPv6 address, with an optional :port'),
    /** The one-line refusal (421: this server is not the one that name is meant for). */
    refusal(header: string): string {
      const h = JSON.stringify(hostOf(header)).slice(1, -1)
      return errorLine(
        `host ${h} is not served here; add it to transport.allowed_hosts or BRIDGE_ALLOWED_HOSTS (a name or *.suffix), set transport.public_url to its URL, or pair once with \`bridge pair --url https://${h}\``,
      )
    },
  }
}

export type HostCheck = ReturnType<typeof createHostCheck>

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs
  } catch {
    return 0
  }
}

/** transport.pair_urls as config.json holds it now; null when the file cannot be read. */
function storedPairUrls(path: string): string[] | null {
  try {
    const urls = JSON.parse(readFileSync(path, 'utf8'))?.transport?.pair_urls
    return Array.isArray(urls) ? urls.filter((u): u is string => typeof u === 'string') : []
  } catch {
    return null
  }
}

/** The host of a URL, lower case; '' when it is not one. */
function urlHost(raw: string): string {
  try {
    return hostOf(new URL(raw).host)
  } catch {
    return ''
  }
}
