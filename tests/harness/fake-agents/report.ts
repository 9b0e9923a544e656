// Talks to herdr (or the simulator) the way agent integrations do: one JSON request per
// connection on $HERDR_SOCKET_PATH. Requests are queued so reports arrive in order.
import net from 'node:net'

let counter = 0
let chain: Promise<unknown> = Promise.resolve()

function once(socketPath: string, method: string, params: Record<string, unknown>): Promise<unknown> {
  return new Promise((resolve) => {
    const sock = net.connect(socketPath)
    let buf = ''
    const done = (v: unknown): void => {
      sock.destroy()
      resolve(v)
    }
    const timer = setTimeout(() => done(undefined), 5000)
    sock.on('connect', () => sock.write(`${JSON.stringify({ id: `fake-agent-${process.pid}-${++counter}`, method, params })}\n`))
    sock.on('data', (d) => {
      buf += d.toString('utf8')
      if (buf.includes('\n')) {
        clearTimeout(timer)
        done(JSON.parse(buf.slice(0, buf.indexOf('\n'))))
      }
    })
    // Outside herdr (no socket) the agent still works; reports just go nowhere.
    sock.on('error', () => {
      clearTimeout(timer)
      done(undefined)
    })
  })
}

export function send(method: string, params: Record<string, unknown>): Promise<unknown> {
  const socketPath = process.env.HERDR_SOCKET_PATH
  if (!socketPath || !process.env.HERDR_PANE_ID) return Promise.resolve(undefined)
  const next = chain.then(() => once(socketPath, method, { pane_id: process.env.HERDR_PANE_ID, ...params }))
  chain = next
  return next
}

export function flush(): Promise<unknown> {
  return chain
}
