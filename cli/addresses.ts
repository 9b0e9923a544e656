import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os'

/** An address of this machine a phone may reach. */
export interface HostAddress {
  address: string
  kind: 'tailnet' | 'LAN'
}

/** Tailscale's CGNAT range 100.64.0.0/10 and its IPv6 ULA prefix fd7a:115c:a1e0::/48. */
export function isTailnet(address: string): boolean {
  const m = /^100\.(\d+)\./.exec(address)
  if (m) return Number(m[1]) >= 64 && Number(m[1]) <= 127
  return address.toLowerCase().startsWith('fd7a:115c:a1e0:')
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h.endsWith('.localhost') || /^127\./.test(h) || h === '::1' || h === '::ffff:127.0.0.1'
}

/** Non-loopback, non-link-local addresses: tailnet first, then LAN; IPv4 before IPv6 within each. */
export function reachableAddresses(ifaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): HostAddress[] {
  const all = Object.values(ifaces)
    .flat()
    .filter((i): i is NetworkInterfaceInfo => !!i && !i.internal)
    .filter((i) => !/^169\.254\./.test(i.address) && !/^fe[89ab]/i.test(i.address))
  const rank = (i: NetworkInterfaceInfo) => (isTailnet(i.address) ? 0 : 2) + (i.family === 'IPv4' ? 0 : 1)
  const seen = new Set<string>()
  return all
    .sort((a, b) => rank(a) - rank(b))
    .filter((i) => !seen.has(i.address) && seen.add(i.address))
    .map((i) => ({ address: i.address, kind: isTailnet(i.address) ? 'tailnet' : 'LAN' }))
}

/** host:port as `--addr` takes it (IPv6 in brackets). */
export function hostPort(address: string, port: number | string): string {
  return `${address.includes(':') ? `[${address}]` : address}:${port}`
}
