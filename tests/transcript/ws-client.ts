/** A real WebSocket client (undici) that queues frames so tests await them in order. */
import { WebSocket } from 'undici'

export interface FrameClient {
  ws: WebSocket
  /** The next frame not yet taken; fails after `timeoutMs`. */
  next(timeoutMs?: number): Promise<any>
  /** Skips frames until one matches; returns it. */
  until(pred: (f: any) => boolean, timeoutMs?: number): Promise<any>
  /** Takes `n` frames. */
  take(n: number, timeoutMs?: number): Promise<any[]>
  send(o: unknown): void
  closed: Promise<{ code: number; reason: string }>
  close(): void
}

export function connect(url: string): Promise<FrameClient> {
  const ws = new WebSocket(url)
  const queue: any[] = []
  let waiter: (() => void) | null = null
  ws.addEventListener('message', (ev) => {
    queue.push(JSON.parse(String(ev.data)))
    waiter?.()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.addEventListener('close', (ev) => resolve({ code: ev.code, reason: ev.reason })))
  const next = async (timeoutMs = 15_000): Promise<any> => {
    const deadline = Date.now() + timeoutMs
    while (!queue.length) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error('no frame arrived in time')
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left)
        waiter = () => {
          clearTimeout(t)
          resolve()
        }
      })
      waiter = null
    }
    return queue.shift()
  }
  const client: FrameClient = {
    ws,
    next,
    async until(pred, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const f = await next(Math.max(1, deadline - Date.now()))
        if (pred(f)) return f
      }
    },
    async take(n, timeoutMs) {
      const out = []
      for (let i = 0; i < n; i++) out.push(await next(timeoutMs))
      return out
    },
    send: (o) => ws.send(typeof o === 'string' ? o : JSON.stringify(o)),
    closed,
    close: () => ws.close(),
  }
  return new Promise((resolve, reject) => {
    ws.addEventListener('open', () => resolve(client), { once: true })
    ws.addEventListener('error', () => reject(new Error('websocket failed to open')), { once: true })
  })
}
