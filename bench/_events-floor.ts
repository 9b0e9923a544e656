// Child process for bench/events: the floor client. It holds herdr's own per-pane status
// subscriptions and does nothing else: each event's receipt time (epoch ms, sub-ms precision,
// comparable across processes) is kept in memory and printed on `dump`.
import { herdrSubscribe } from '../core/herdr/socket.ts'

const [socket, ...panes] = process.argv.slice(2)
const got: string[] = []
let acked = 0
for (const pane of panes)
  herdrSubscribe(socket, [{ type: 'pane.agent_status_changed', pane_id: pane }], {
    onAck: () => ++acked === panes.length && process.stdout.write('ready\n'),
    onEvent: (_name, data) => {
      const d = data as { pane_id?: string; agent_status?: string } | undefined
      got.push(`${d?.pane_id}|${d?.agent_status} ${performance.timeOrigin + performance.now()}`)
    },
    onClose: () => {},
  })
process.stdin.setEncoding('utf8')
process.stdin.on('data', (d: string) => {
  if (d.includes('dump')) process.stdout.write(JSON.stringify(got) + '\n', () => process.exit(0))
})
