import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A loopback HTTP server standing in for a push service, an ntfy server or a webhook receiver:
 * it records each request's method, path, headers and exact body bytes, and answers as told
 * per path (a status list consumed one per request, `stall` to never answer, `reset` to drop the
 * connection unanswered, or a status with headers such as Retry-After).
 */
export interface Received {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: Buffer
  at: number
}

export type Answer = number | 'stall' | 'reset' | { status: number; headers: Record<string, string> }

export interface StandIn {
  url: string
  received: Received[]
  /** Requests that arrived on a stalled path and are still open. */
  stalled: number
  /** Answers for a path, used in order; the last one repeats. Default 201. */
  answer(path: string, ...answers: Answer[]): void
  waitFor(pred: (r: Received) => boolean, timeoutMs?: number): Promise<Received>
  close(): Promise<void>
}

export async function startStandIn(): Promise<StandIn> {
  const received: Received[] = []
  const answers = new Map<string, Answer[]>()
  const open = new Set<ServerResponse>()
  const waiters: { pred: (r: Received) => boolean; resolve: (r: Received) => void }[] = []
  const s: StandIn = {
    url: '',
    received,
    stalled: 0,
    answer: (path, ...a) => void answers.set(path, a),
    waitFor(pred, timeoutMs = 20_000) {
      const hit = received.find(pred)
      if (hit) return Promise.resolve(hit)
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (r: Received) => (clearTimeout(t), resolve(r)) }
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1)
          reject(new Error(`stand-in: no matching request; got ${received.map((r) => `${r.method} ${r.path}`).join(', ') || 'none'}`))
        }, timeoutMs)
        waiters.push(w)
      })
    },
    async close() {
      for (const res of open) res.destroy()
      await new Promise<void>((r) => server.close(() => r()))
    },
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = req.url ?? '/'
      const r: Received = { method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() }
      received.push(r)
      for (const w of [...waiters]) {
        if (!w.pred(r)) continue
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(r)
      }
      const list = answers.get(path) ?? [201]
      const a = list.length > 1 ? list.shift()! : list[0]
      if (a === 'stall') {
        s.stalled++
        open.add(res)
        res.on('close', () => (open.delete(res), s.stalled--))
        return
      }
      if (a === 'reset') return void req.socket.destroy()
      const { status, headers } = typeof a === 'number' ? { status: a, headers: {} } : a
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? '' : `status ${status}`)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return s
}
