/** A real WebSocket client (undici) that queues frames so tests await them in order. */
import { WebSocket } from 'undici'

/**
 * One parsed /transcript frame. Tests read any frame kind's fields straight off it and assert them
 * exactly, so a frame is left untyped here rather than cast at each of the many call sites.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary JSON frames, checked by each test's own assertions
export type Frame = any

export interface FrameClient {
  ws: WebSocket
  /** The next frame not yet taken; fails after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Frame>
  /** Skips frames until one matches; returns it. */
  until(pred: (f: Frame) => boolean, timeoutMs?: number): Promise<Frame>
  /** Takes `n` frames. */
  take(n: number, timeoutMs?: number): Promise<Frame[]>
  send(o: unknown): void
  closed: Promise<{ code: number; reason: string }>
  close(): void
}

export function connect(url: string): Promise<FrameClient> {
  const ws = new WebSocket(url)
  const queue: Frame[] = []
  let waiter: (() => void) | null = null
  ws.addEventListener('message', (ev) => {
    queue.push(JSON.parse(String(ev.data)))
    waiter?.()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.addEventListener('close', (ev) => resolve({ code: ev.code, reason: ev.reason })))
  const next = async (timeoutMs = 15_000): Promise<Frame> => {
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
