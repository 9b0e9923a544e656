import { createConnection, isIP } from 'node:net'
import { existsSync } from 'node:fs'
import { procListeners, readStat } from './proc.ts'
import { lsofListeners, psParents } from './lsof.ts'

/**
 * The host-wide scan of HTTP listeners shared by /ports and /suggestions: every TCP listener,
 * kept when it answers HTTP, attributed to the pane whose shell is an ancestor of its process.
 */

export interface HostListener {
  port: number
  /** Bind address; `*` for a wildcard (0.0.0.0 / ::). */
  bind: string
  pid: number
  proc: string
  loopback: boolean
  /** Session-qualified pane id whose shell spawned the listener. */
  pane?: string
  /** Agent kind in that pane. */
  agent?: string
}

export const SCAN_TTL_MS = 5000
const PANE_MAP_TTL_MS = 30_000
const PROBE_MS = 400
const MAX_HOPS = 64

export function isLoopback(bind: string): boolean {
  return bind === '::1' || bind === 'localhost' || bind.startsWith('127.') || bind.startsWith('::ffff:127.')
}

const WILDCARDS = new Set(['*', '0.0.0.0', '::', '::ffff:0.0.0.0'])

/** Answers HTTP: the first five bytes of a reply to `GET /` are `HTTP/`. */
export function probeHttp(bind: string, port: number, timeoutMs = PROBE_MS): Promise<boolean> {
  const host = WILDCARDS.has(bind) ? '127.0.0.1' : bind
  return new Promise((resolve) => {
    let buf = ''
    const sock = createConnection({ host, port })
    const done = (ok: boolean) => {
      clearTimeout(timer)
      sock.destroy()
      resolve(ok)
    }
    const timer = setTimeout(() => done(false), timeoutMs)
    sock.setEncoding('latin1')
    sock.on('connect', () => sock.write('GET / HTTP/1.0\r\nHost: localhost\r\n\r\n'))
    sock.on('data', (d: string) => {
      buf += d
      if (buf.length >= 5) done(buf.startsWith('HTTP/'))
    })
    sock.on('error', () => done(false))
    sock.on('close', () => done(buf.startsWith('HTTP/')))
  })
}

/** Shell pid → the pane it runs in (session-qualified) and the agent kind there. */
export type PaneShells = Map<number, { pane: string; agent?: string }>

interface PaneMap {
  at: number
  shells: PaneShells
}

/** What a scanner reads outside the host's process table: the panes' shells (from herdr) and the clock. */
export interface PortScannerDeps {
  paneShells(): Promise<PaneShells>
  now(): number
}

export interface PortScanner {
  /** HTTP listeners, cached for 5 s; throws when the host cannot be scanned. */
  scan(): Promise<HostListener[]>
}

async function buildPaneMap(deps: PortScannerDeps): Promise<PaneMap> {
  const shells = await deps.paneShells()
  return { at: deps.now(), shells }
}

function attribute(pid: number, parentOf: (pid: number) => number | undefined, shells: PaneMap['shells']) {
  let p: number | undefined = pid
  for (let hop = 0; hop < MAX_HOPS && p && p > 1; hop++) {
    const hit = shells.get(p)
    if (hit) return hit
    p = parentOf(p)
  }
  return undefined
}

export function createPortScanner(deps: PortScannerDeps): PortScanner {
  let cached: { at: number; value: Promise<HostListener[]> } | undefined
  let paneMap: PaneMap | undefined

  const run = async (): Promise<HostListener[]> => {
    const useProc = existsSync('/proc/net/tcp')
    const raw = useProc ? procListeners() : await lsofListeners()
    const parents = useProc ? undefined : await psParents()
    const parentOf = (pid: number) => (parents ? parents.get(pid) : readStat(pid)?.ppid)
    const seen = new Set<string>()
    const unique = raw
      .map((l) => ({ ...l, bind: WILDCARDS.has(l.bind) ? '*' : l.bind }))
      .filter((l) => {
        const key = `${l.pid}:${l.bind}:${l.port}`
        if (seen.has(key)) return false
        seen.add(key)
        return true
      })
    const http = (await Promise.all(unique.map(async (l) => ((await probeHttp(l.bind, l.port)) ? l : null)))).filter((l) => l !== null)
    if (!paneMap || deps.now() - paneMap.at > PANE_MAP_TTL_MS) paneMap = await buildPaneMap(deps)
    // A pane opened since the map was built: rebuild (at most once per scan period) rather than
    // miss it for 30 s. Listeners outside any pane are common, hence the rate limit.
    if (http.some((l) => !attribute(l.pid, parentOf, paneMap!.shells)) && deps.now() - paneMap.at >= SCAN_TTL_MS) paneMap = await buildPaneMap(deps)
    return http
      .map((l) => {
        const hit = attribute(l.pid, parentOf, paneMap!.shells)
        const out: HostListener = { port: l.port, bind: l.bind, pid: l.pid, proc: l.proc, loopback: isLoopback(l.bind) }
        if (hit) {
          out.pane = hit.pane
          if (hit.agent) out.agent = hit.agent
        }
        return out
      })
      .sort((a, b) => a.port - b.port || a.pid - b.pid)
  }

  return {
    scan() {
      const now = deps.now()
      if (cached && now - cached.at < SCAN_TTL_MS) return cached.value
      const value = run()
      cached = { at: now, value }
      value.catch(() => {
        if (cached?.value === value) cached = undefined
      })
      return value
    },
  }
}

const hostOf = (h: string | undefined | null) => {
  if (!h) return ''
  try {
    return new URL(h.includes('://') ? h : `http://${h}`).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return ''
  }
}

/** The host a client can reach this machine at: the first non-loopback of request Host, public_url, listen addr. */
export function reachableHost(requestHost: string | null | undefined, ctx: { config: { transport: { public_url?: string; addr: string } } }): string {
  const candidates = [hostOf(requestHost), hostOf(ctx.config.transport.public_url), hostOf(ctx.config.transport.addr)].filter(Boolean)
  return candidates.find((h) => !isLoopback(h) && !WILDCARDS.has(h)) ?? candidates[0] ?? ''
}

/** Direct URL of a listener: none for loopback; the reachable host for a wildcard; else the bind. */
export function directUrl(l: HostListener, host: string): string | undefined {
  if (l.loopback) return undefined
  const h = WILDCARDS.has(l.bind) ? host : l.bind
  if (!h) return undefined
  return `http://${isIP(h) === 6 ? `[${h}]` : h}:${l.port}`
}
