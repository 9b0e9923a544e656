// Talks to herdr (or the simulator) the way agent integrations do: one JSON request per
// connection on $HERDR_SOCKET_PATH. Requests are queued so reports arrive in order, and a lost
// one is sent again: a dropped "blocked" report would leave the pane working forever.
import net from 'node:net'

let counter = 0
let chain: Promise<unknown> = Promise.resolve()

/** One try: the answer, `lost` (timed out or the connection failed), or `absent` (no socket: not inside herdr). */
type Try = { answer: unknown } | 'lost' | 'absent'

const ATTEMPT_MS = 5000
/** How long a report keeps being retried before it is given up (the simulator stopped). */
const GIVE_UP_MS = 60_000

function once(socketPath: string, method: string, params: Record<string, unknown>): Promise<Try> {
  return new Promise((resolve) => {
    const sock = net.connect(socketPath)
    let buf = ''
    const done = (v: Try): void => {
      clearTimeout(timer)
      sock.destroy()
      resolve(v)
    }
    const timer = setTimeout(() => done('lost'), ATTEMPT_MS)
    sock.on('connect', () => sock.write(`${JSON.stringify({ id: `fake-agent-${process.pid}-${++counter}`, method, params })}\n`))
    sock.on('data', (d) => {
      buf += d.toString('utf8')
      if (buf.includes('\n')) done({ answer: JSON.parse(buf.slice(0, buf.indexOf('\n'))) })
    })
    sock.on('error', (err: NodeJS.ErrnoException) => done(err.code === 'ENOENT' ? 'absent' : 'lost'))
    sock.on('close', () => done('lost'))
  })
}

/** Sends until answered; the simulator applies a repeated report once (same state, no event). */
async function deliver(socketPath: string, method: string, params: Record<string, unknown>): Promise<unknown> {
  const deadline = Date.now() + GIVE_UP_MS
  for (let attempt = 0; ; attempt++) {
    const r = await once(socketPath, method, params)
    // Outside herdr (no socket) the agent still works; reports just go nowhere.
    if (r === 'absent') return undefined
    if (r !== 'lost') return r.answer
    if (Date.now() >= deadline) return undefined
    await new Promise((res) => setTimeout(res, Math.min(100 * 2 ** attempt, 1000)))
  }
}

export function send(method: string, params: Record<string, unknown>): Promise<unknown> {
  const socketPath = process.env.HERDR_SOCKET_PATH
  if (!socketPath || !process.env.HERDR_PANE_ID) return Promise.resolve(undefined)
  const next = chain.then(() => deliver(socketPath, method, { pane_id: process.env.HERDR_PANE_ID, ...params }))
  chain = next
  return next
}

export function flush(): Promise<unknown> {
  return chain
}
