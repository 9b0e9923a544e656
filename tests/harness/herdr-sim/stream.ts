// The simulator-private terminal stream behind the fake CLI's `terminal session observe|control`.
// herdr serves this over its binary client socket; here the CLI sends one JSON request line
// (`sim.terminal.attach`) on the API socket and the connection then carries exactly the lines
// the CLI prints (terminal.frame / terminal.closed) and the lines it reads from stdin.
import type { Connection } from './wire.ts'
import type { Pane, SessionState } from './state.ts'
import { terminalTarget } from './resolve.ts'

export interface AttachParams {
  target: string
  mode: 'observe' | 'control'
  takeover?: boolean
  cols?: number
  rows?: number
}

const FLUSH_MS = 15

class StreamClient {
  private seq = 0
  private pending = ''
  private flushTimer: NodeJS.Timeout | undefined
  private unsubscribe: (() => void) | undefined
  closed = false

  constructor(
    readonly s: SessionState,
    readonly pane: Pane,
    readonly conn: Connection,
    readonly mode: 'observe' | 'control',
    public cols: number,
    public rows: number,
  ) {}

  start(): void {
    this.frame(this.pane.terminal.fullFrame(this.cols, this.rows), true)
    this.unsubscribe = this.pane.terminal.onOutput((data) => {
      this.pending += data
      this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS)
    })
    this.conn.onGone(() => this.dispose())
  }

  private flush(): void {
    this.flushTimer = undefined
    if (this.pending === '' || this.closed) return
    const data = this.pending
    this.pending = ''
    this.frame(data, false)
  }

  // Keys are written in alphabetical order, as herdr's CLI prints them.
  private frame(data: string, full: boolean): void {
    this.seq += 1
    this.conn.send({
      bytes: Buffer.from(data, 'utf8').toString('base64'),
      encoding: 'ansi',
      full,
      height: this.mode === 'control' ? this.pane.terminal.rows : this.rows,
      seq: this.seq,
      type: 'terminal.frame',
      width: this.mode === 'control' ? this.pane.terminal.cols : this.cols,
    })
  }

  close(reason: string | null): void {
    if (this.closed) return
    this.flush()
    this.conn.send({ reason, type: 'terminal.closed' })
    this.conn.close()
    this.dispose()
  }

  dispose(): void {
    if (this.closed) return
    this.closed = true
    if (this.flushTimer) clearTimeout(this.flushTimer)
    this.unsubscribe?.()
    registry(this.s).delete(this)
    if (this.mode === 'control' && controllers.get(this.pane) === this) {
      controllers.delete(this.pane)
      this.pane.sizeLocked = false
      if (!this.pane.removed) this.s.relayout(this.pane.tab)
    }
  }

  handleLine(line: string): void {
    let msg: Record<string, unknown>
    try {
      msg = JSON.parse(line) as Record<string, unknown>
    } catch {
      return
    }
    if (msg.type === 'terminal.release') return this.close('detached')
    if (this.mode !== 'control') return
    if (msg.type === 'terminal.input') {
      const data = typeof msg.bytes === 'string' ? Buffer.from(msg.bytes, 'base64') : typeof msg.text === 'string' ? msg.text : ''
      if (data.length > 0 && !this.pane.terminal.exited) this.pane.terminal.write(data)
    } else if (msg.type === 'terminal.resize') {
      const cols = Number(msg.cols)
      const rows = Number(msg.rows)
      if (cols > 0 && rows > 0) {
        this.cols = cols
        this.rows = rows
        this.pane.terminal.resize(cols, rows)
      }
    } else if (msg.type === 'terminal.scroll' && msg.source === 'page_key') {
      const bytes = msg.direction === 'up' ? '\x1b[5~' : '\x1b[6~'
      if (!this.pane.terminal.exited) this.pane.terminal.write(bytes.repeat(Math.max(1, Number(msg.lines) || 1)))
    }
  }
}

const registries = new WeakMap<SessionState, Set<StreamClient>>()
const controllers = new WeakMap<Pane, StreamClient>()

function registry(s: SessionState): Set<StreamClient> {
  let set = registries.get(s)
  if (!set) {
    set = new Set()
    registries.set(s, set)
    // A pane that goes away ends its streams with herdr's wording.
    s.paneRemovedHooks.push((pane) => {
      for (const c of [...set!]) if (c.pane === pane) c.close(`terminal attach ended: terminal ${pane.terminalId} not found`)
    })
  }
  return set
}

export function attachStream(s: SessionState, conn: Connection, p: AttachParams): void {
  const verb = p.mode === 'control' ? 'control' : 'observe'
  const closeWith = (reason: string): void => {
    conn.send({ reason, type: 'terminal.closed' })
    conn.close()
  }
  const pane = terminalTarget(s, p.target)
  if (!pane) return closeWith(`terminal session ${verb} failed: terminal target ${p.target} not found`)
  const cols = p.cols && p.cols > 0 ? p.cols : 120
  const rows = p.rows && p.rows > 0 ? p.rows : 40
  const client = new StreamClient(s, pane, conn, p.mode, cols, rows)
  if (p.mode === 'control') {
    const owner = controllers.get(pane)
    if (owner && !owner.closed) {
      if (!p.takeover) {
        return closeWith(`terminal attach failed: terminal ${pane.terminalId} already has an attached client; retry with --takeover`)
      }
      owner.close('terminal attach taken over')
    }
    controllers.set(pane, client)
    // A controller sizes the PTY to its own viewport and locks it there.
    pane.sizeLocked = true
    pane.terminal.resize(cols, rows)
  }
  registry(s).add(client)
  let buffered = ''
  conn.takeData((chunk) => {
    if (chunk.length === 0) return client.close('detached') // EOF on the CLI's stdin detaches
    buffered += chunk.toString('utf8')
    let nl: number
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim()
      buffered = buffered.slice(nl + 1)
      if (line) client.handleLine(line)
    }
  })
  client.start()
}

export function closeAllStreams(s: SessionState, reason: string): void {
  for (const c of [...registry(s)]) c.close(reason)
}
