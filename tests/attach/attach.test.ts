import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync } from 'node:fs'
import { WebSocket } from 'undici'
import { startStack, type Stack } from '../harness/stack.ts'
import { until as waitUntil } from '../harness/wait.ts'

/**
 * /attach end to end: the real bridge, the herdr simulator with real shells in real PTYs, and
 * the fake herdr CLI spawned by the bridge for every connection.
 */

let st: Stack
let token: string
beforeAll(async () => {
  st = await startStack()
  token = st.bridge.adminToken
})
afterAll(() => st?.close())

async function newPane(): Promise<string> {
  const r = await st.sim.request('workspace.create', { cwd: st.home })
  return r.root_pane.pane_id as string
}

const screen = async (pane: string) => (await st.sim.request('pane.read', { pane_id: pane, source: 'visible', format: 'text' })).read.text as string

/** Argument order of this file: what first. */
const until = <T>(what: string, fn: () => T | Promise<T>, timeoutMs?: number) => waitUntil(fn, what, timeoutMs)

interface Client {
  ws: WebSocket
  frames: Buffer[]
  textFrames: string[]
  /** Everything received so far, decoded. */
  output(): string
  opened: Promise<void>
  closed: Promise<{ code: number; reason: string }>
  type(s: string): void
  control(obj: unknown): void
}

function attach(query: string): Client {
  const ws = new WebSocket(`${st.bridge.wsUrl}/attach?${query}`)
  ws.binaryType = 'arraybuffer'
  const frames: Buffer[] = []
  const textFrames: string[] = []
  ws.addEventListener('message', (e) => {
    if (typeof e.data === 'string') textFrames.push(e.data)
    else frames.push(Buffer.from(e.data))
  })
  const opened = new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve())
    ws.addEventListener('error', () => reject(new Error('websocket failed to open')))
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })))
  return {
    ws,
    frames,
    textFrames,
    output: () => Buffer.concat(frames).toString('utf8'),
    opened,
    closed,
    type: (s) => ws.send(Buffer.from(s, 'utf8')),
    control: (obj) => ws.send(JSON.stringify(obj)),
  }
}

const q = (pane: string, extra = '') => `pane=${encodeURIComponent(pane)}&token=${token}${extra}`

/** herdr CLI processes this test process spawned (through the in-process bridge). */
function cliChildren(): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid !== process.pid) continue
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')
      if (cmd.includes('terminal') && cmd.includes('session')) out.push(Number(name))
    } catch {
      // exited meanwhile
    }
  }
  return out
}

describe('before the upgrade', () => {
  it('401 without a token, 400 without a pane or with bad options, 404 for an unknown pane, 426 for a plain GET', async () => {
    const pane = await newPane()
    const get = (query: string, headers: Record<string, string> = {}) => fetch(`${st.bridge.url}/attach?${query}`, { headers })
    let r = await get(`pane=${pane}`)
    expect([r.status, await r.text()]).toEqual([401, 'unauthorized'])
    r = await get(`pane=${pane}&token=nope`)
    expect([r.status, await r.text()]).toEqual([401, 'unauthorized'])
    r = await get(`token=${token}`)
    expect([r.status, await r.text()]).toEqual([400, 'want ?pane=<pane_id>'])
    r = await get(`${q(pane)}&mode=write`)
    expect([r.status, await r.text()]).toEqual([400, 'mode: want control or observe'])
    r = await get(`${q(pane)}&cols=0`)
    expect([r.status, await r.text()]).toEqual([400, 'cols: want an integer 1..1000'])
    r = await get(q('w99:p99'))
    expect([r.status, await r.text()]).toEqual([404, 'pane w99:p99 not found'])
    r = await get(q('nosuch/w1:p1'))
    expect(r.status).toBe(404)
    r = await get(`pane=${pane}`, { authorization: `Bearer ${token}` })
    expect(r.status).toBe(426)
    // A real upgrade attempt without a token never opens.
    const c = attach(`pane=${pane}`)
    await expect(c.opened).rejects.toThrow('websocket failed to open')
    expect(cliChildren()).toEqual([])
  })
})

describe('control', () => {
  it('relays PTY output as binary frames and typed bytes into the pane; Ctrl+C interrupts', async () => {
    const pane = await newPane()
    const c = attach(q(pane))
    await c.opened
    await until('first repaint', () => c.frames.length > 0)
    c.type('echo hi-$((40+2))\r')
    await until('echo output', () => c.output().includes('hi-42'))
    expect(await screen(pane)).toContain('hi-42')
    expect(c.textFrames).toEqual([])

    c.type('sleep 30\r')
    await until('sleep started', async () =>
      (await st.sim.request('pane.process_info', { pane_id: pane })).process_info.foreground_processes?.some((p: { name?: string }) => p.name === 'sleep'),
    )
    c.type('\x03')
    c.type('echo after-$((1+1))\r')
    await until('prompt back after Ctrl+C', async () => (await screen(pane)).includes('after-2'))
    c.ws.close()
    expect((await c.closed).code).toBe(1005)
  })

  it('resizes the PTY from a resize text frame and types nothing from other text frames', async () => {
    const pane = await newPane()
    const c = attach(q(pane, '&cols=90&rows=20'))
    await c.opened
    c.type('stty size\r')
    await until('initial size', async () => (await screen(pane)).includes('20 90'))
    c.control({ type: 'resize', cols: 101, rows: 33 })
    c.control({ type: 'resize', cols: 5000, rows: 33 })
    c.ws.send('echo typed-from-text\r')
    c.control({ type: 'input', data: 'echo typed-from-json\r' })
    c.type('clear; stty size\r')
    await until('resized', async () => (await screen(pane)).includes('33 101'))
    const s = await screen(pane)
    expect(s).not.toContain('typed-from')
    expect(s).not.toContain('5000')
    c.ws.close()
    await c.closed
  })

  it('refuses a second controller, and takeover=1 takes the pane over', async () => {
    const pane = await newPane()
    const a = attach(q(pane))
    await a.opened
    await until('a streaming', () => a.frames.length > 0)
    const b = attach(q(pane))
    expect(await b.closed).toEqual({ code: 4409, reason: 'pane already has a controller: use mode=observe to watch, or takeover=1 to take it over' })
    a.type('echo still-mine\r')
    await until('a still controls', async () => (await screen(pane)).includes('still-mine'))

    const c = attach(q(pane, '&takeover=1'))
    expect(await a.closed).toEqual({ code: 4001, reason: 'taken over by another client' })
    await c.opened
    c.type('echo now-c\r')
    await until('c controls', async () => (await screen(pane)).includes('now-c'))
    c.ws.close()
    await c.closed
  })

  it('closes the socket with the reason when the pane goes away, and reaps the CLI', async () => {
    const pane = await newPane()
    const c = attach(q(pane))
    await c.opened
    await until('streaming', () => c.frames.length > 0)
    const terminalId = (await st.sim.request('pane.get', { pane_id: pane })).pane.terminal_id
    await st.sim.request('pane.close', { pane_id: pane })
    expect(await c.closed).toEqual({ code: 1000, reason: `terminal attach ended: terminal ${terminalId} not found` })
    await until('no CLI left', () => cliChildren().length === 0)
  })
})

describe('observe', () => {
  it('receives output but cannot type or resize', async () => {
    const pane = await newPane()
    await st.sim.request('pane.send_text', { pane_id: pane, text: 'stty size\r' })
    const before = await until('size', async () => /(\d+ \d+)/.exec(await screen(pane))?.[1])
    const o = attach(q(pane, '&mode=observe&cols=70&rows=20'))
    await o.opened
    await until('first frame', () => o.frames.length > 0)
    o.type('echo from-observer\r')
    o.control({ type: 'resize', cols: 50, rows: 10 })
    await st.sim.request('pane.send_text', { pane_id: pane, text: 'clear; echo desk-$((6*7)); stty size\r' })
    await until('observer sees desk output', () => o.output().includes('desk-42'))
    await until('desk size printed', async () => (await screen(pane)).includes('desk-42'))
    const s = await screen(pane)
    expect(s).not.toContain('from-observer')
    expect(s).toContain(before)
    // Any number of observers may watch while a controller holds the pane.
    const ctl = attach(q(pane))
    await ctl.opened
    const o2 = attach(q(pane, '&mode=observe'))
    await o2.opened
    await until('second observer streams', () => o2.frames.length > 0)
    for (const c of [o, o2, ctl]) c.ws.close()
    await Promise.all([o.closed, o2.closed, ctl.closed])
  })
})

describe('history seed', () => {
  it('a shell pane with scrollback gets one CRLF history frame before the first repaint', async () => {
    const pane = await newPane()
    await st.sim.request('pane.send_text', { pane_id: pane, text: 'seq 1 300\r' })
    await until('seq output', async () => (await screen(pane)).includes('300'))
    const c = attach(q(pane))
    await c.opened
    await until('two frames', () => c.frames.length >= 2)
    const seed = c.frames[0].toString('utf8')
    expect(seed.startsWith('\x1b[2J')).toBe(false)
    expect(seed).not.toContain('\x1b[H')
    expect(seed).toContain('\r\n1\r\n2\r\n3\r\n')
    expect(seed).toContain('\r\n299\r\n300\r\n')
    expect(seed.replace(/\r\n/g, '')).not.toContain('\n')
    // The live stream starts with herdr's full repaint after it.
    expect(c.frames[1].toString('utf8')).toContain('\x1b[2J')
    c.ws.close()
    await c.closed
  })

  it('an alternate-screen program gets no history frame', async () => {
    const pane = await newPane()
    await st.sim.request('pane.send_text', { pane_id: pane, text: "seq 1 300; printf '\\033[?1049h\\033[HALT-SCREEN'; cat\r" })
    await until('alt screen', async () => (await screen(pane)).includes('ALT-SCREEN'))
    const c = attach(q(pane))
    await c.opened
    await until('first frame', () => c.frames.length >= 1)
    const first = c.frames[0].toString('utf8')
    expect(first).toContain('\x1b[2J')
    expect(first).toContain('ALT-SCREEN')
    expect(c.output()).not.toContain('\r\n299\r\n')
    c.ws.close()
    await c.closed
  })
})

describe('teardown', () => {
  it('closing the socket kills and reaps the CLI; 200 connect/disconnect cycles leave no process', async () => {
    const pane = await newPane()
    const c = attach(q(pane, '&mode=observe'))
    await c.opened
    await until('CLI running', () => cliChildren().length === 1)
    c.ws.close()
    await c.closed
    await until('CLI gone', () => cliChildren().length === 0)

    const fds = () => readdirSync('/proc/self/fd').length
    const fdBefore = fds()
    const cycle = async (i: number) => {
      const x = attach(q(pane, i % 2 ? '&mode=observe' : '&mode=observe&cols=40&rows=10'))
      await x.opened
      if (i % 3 === 0) await until('a frame', () => x.frames.length > 0)
      x.ws.close()
      await x.closed
    }
    let next = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 200) await cycle(next++)
      }),
    )
    await until('every CLI reaped', () => cliChildren().length === 0, 60_000)
    // Pipes of the 200 children are closed too (a little slack for sockets the test itself keeps).
    await until('file descriptors released', () => fds() <= fdBefore + 4, 20_000)
  }, 240_000)
})
