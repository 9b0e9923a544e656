/**
 * A loopback HTTP server that answers every request the way a hostile target would: a gigabyte
 * as fast as the socket takes it, or a few bytes at a time and never an end. For the outbound
 * caps (lib/capped-read.ts): each client the daemon has is pointed at one of these.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { readFileSync } from 'node:fs'

export type HostileMode = 'giant' | 'trickle'

export interface HostileServer {
  url: string
  /** Requests received, in order (path and method). */
  requests: { method: string; path: string }[]
  /** Bytes of answer body written, over all requests. */
  written(): number
  /** Connections currently open. */
  open(): number
  /** Resolves once `n` requests arrived and every connection closed again. */
  settled(n: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

const CHUNK = Buffer.alloc(64 * 1024, 'A')

export async function startHostile(mode: HostileMode, opts: { status?: number; totalBytes?: number; trickleMs?: number } = {}): Promise<HostileServer> {
  const total = opts.totalBytes ?? 1024 * 1024 * 1024
  const requests: HostileServer['requests'] = []
  const sockets = new Set<Socket>()
  let written = 0
  /** Waiters re-checked whenever a request arrives or a connection closes. */
  const changed = new Set<() => void>()
  const notify = () => setImmediate(() => [...changed].forEach((f) => f()))
  const server: Server = createServer((req: IncomingMessage, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '' })
    notify()
    req.resume()
    res.on('error', () => {})
    res.writeHead(opts.status ?? 500, { 'content-type': 'text/plain', ...(mode === 'giant' ? { 'content-length': String(total) } : {}) })
    if (mode === 'trickle') {
      // An escape sequence first: whatever is kept of it must reach a log escaped.
      res.write('\u001b]0;owned\u0007\u001b[31m')
      const t = setInterval(() => {
        if (res.destroyed) return clearInterval(t)
        res.write('z')
        written++
      }, opts.trickleMs ?? 50)
      res.on('close', () => clearInterval(t))
      return
    }
    let left = total
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        const n = Math.min(left, CHUNK.length)
        left -= n
        written += n
        if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void res.once('drain', pump)
      }
      if (left <= 0) res.end()
    }
    pump()
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('error', () => {})
    s.once('close', () => {
      sockets.delete(s)
      notify()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  return {
    url,
    requests,
    written: () => written,
    open: () => sockets.size,
    settled(n, timeoutMs = 60_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (requests.length < n || sockets.size > 0) return
          clearTimeout(timer)
          changed.delete(check)
          resolve()
        }
        const timer = setTimeout(() => {
          changed.delete(check)
          reject(new Error(`hostile server: ${requests.length}/${n} requests, ${sockets.size} connections still open after ${timeoutMs} ms`))
        }, timeoutMs)
        changed.add(check)
        check()
      })
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy()
        server.close(() => r())
      }),
  }
}

/** Resident set size now and at its peak (VmRSS / VmHWM of /proc/<pid>/status), in bytes. */
export function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}
