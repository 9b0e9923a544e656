/**
 * /attach: streaming throughput and keystroke-to-echo latency through the bridge, each against
 * the floor of the same work done by reading the fake herdr CLI directly (no bridge, no WebSocket).
 *   throughput: `cat` of a 50 MB file in a simulator pane, timed until its end marker arrives
 *   latency:    one character typed at a shell prompt until its echo arrives, p50/p99
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { WebSocket } from 'undici'
import { startStack } from '../tests/harness/stack.ts'
import { FAKE_HERDR_BIN } from '../tests/harness/bridge.ts'

const MB = 1024 * 1024
const SIZE = 50 * MB
const KEYS = 200

interface Stream {
  /** Resolves when the decoded output since the last mark contains `s`. */
  waitFor(s: string): Promise<void>
  mark(): void
  type(s: string): void
  close(): void
}

function directStream(env: NodeJS.ProcessEnv, pane: string, mode: 'observe' | 'control'): Promise<Stream> {
  const child = spawn(FAKE_HERDR_BIN, ['terminal', 'session', mode, pane, '--cols', '120', '--rows', '40'], { env, stdio: ['pipe', 'pipe', 'ignore'] })
  return wrap((onData) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      const m = JSON.parse(l)
      if (m.type === 'terminal.frame') onData(Buffer.from(m.bytes, 'base64').toString('latin1'))
    })
    return {
      type: (s) => child.stdin.write(JSON.stringify({ type: 'terminal.input', text: s }) + '\n'),
      close: () => child.kill(),
    }
  })
}

function bridgeStream(wsUrl: string, token: string, pane: string, mode: 'observe' | 'control'): Promise<Stream> {
  const ws = new WebSocket(`${wsUrl}/attach?pane=${encodeURIComponent(pane)}&token=${token}&mode=${mode}&cols=120&rows=40`)
  ws.binaryType = 'arraybuffer'
  return new Promise((resolve) =>
    ws.addEventListener('open', () =>
      resolve(
        wrap((onData) => {
          ws.addEventListener('message', (e: any) => onData(Buffer.from(e.data).toString('latin1')))
          return { type: (s) => ws.send(Buffer.from(s)), close: () => ws.close() }
        }),
      ),
    ),
  )
}

async function wrap(start: (onData: (s: string) => void) => { type(s: string): void; close(): void }): Promise<Stream> {
  let buf = ''
  let waiter: { s: string; resolve: () => void } | null = null
  const io = start((d) => {
    // Keep only a tail: the marker is short and 50 MB need not be held.
    buf = (buf + d).slice(-4096)
    if (waiter && buf.includes(waiter.s)) {
      const w = waiter
      waiter = null
      w.resolve()
    }
  })
  return {
    mark: () => void (buf = ''),
    waitFor: (s) => (buf.includes(s) ? Promise.resolve() : new Promise((resolve) => (waiter = { s, resolve }))),
    type: io.type,
    close: io.close,
  }
}

async function throughput(st: Awaited<ReturnType<typeof startStack>>, file: string, stream: Stream, pane: string, tag: string): Promise<number> {
  stream.mark()
  const marker = `END-${tag}-${Date.now()}`
  const t0 = performance.now()
  // Quoted in two halves, so the echoed command line never contains the marker itself.
  await st.sim.request('pane.send_text', { pane_id: pane, text: `cat ${file}; echo "${marker.slice(0, 4)}""${marker.slice(4)}"\r` })
  await stream.waitFor(marker)
  return SIZE / MB / ((performance.now() - t0) / 1000)
}

async function latency(stream: Stream): Promise<number[]> {
  const out: number[] = []
  const chars = 'abcdefghijklmnopqrstuvwxyz'
  for (let i = 0; i < KEYS; i++) {
    if (i % 40 === 0) {
      stream.type('\x15') // Ctrl+U keeps the line short
      await new Promise((r) => setTimeout(r, 30))
    }
    const c = chars[i % chars.length]
    stream.mark()
    const t0 = performance.now()
    stream.type(c)
    await stream.waitFor(c)
    out.push(performance.now() - t0)
  }
  return out.sort((a, b) => a - b)
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]

export async function run(): Promise<void> {
  const st = await startStack()
  try {
    const file = join(st.home, 'bench-50mb.txt')
    const line = 'the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ\n'
    writeFileSync(file, line.repeat(Math.ceil(SIZE / line.length)).slice(0, SIZE))
    const pane = (await st.sim.request('workspace.create', { cwd: st.home })).root_pane.pane_id
    const env: NodeJS.ProcessEnv = { ...process.env, ...st.sim.clientEnv() }
    delete env.HERDR_SOCKET_PATH

    const direct = await directStream(env, pane, 'observe')
    const floorTp = await throughput(st, file, direct, pane, 'direct')
    direct.close()
    const viaBridge = await bridgeStream(st.bridge.wsUrl, st.bridge.adminToken, pane, 'observe')
    const bridgeTp = await throughput(st, file, viaBridge, pane, 'bridge')
    viaBridge.close()
    console.log(`throughput: floor (fake CLI stdout) ${floorTp.toFixed(1)} MB/s, /attach ${bridgeTp.toFixed(1)} MB/s, ratio ${(bridgeTp / floorTp).toFixed(2)}`)

    await st.sim.request('pane.send_text', { pane_id: pane, text: 'clear\r' })
    const dctl = await directStream(env, pane, 'control')
    const floorLat = await latency(dctl)
    dctl.close()
    await new Promise((r) => setTimeout(r, 200))
    const bctl = await bridgeStream(st.bridge.wsUrl, st.bridge.adminToken, pane, 'control')
    const lat = await latency(bctl)
    bctl.close()
    console.log(
      `keystroke→echo: floor p50 ${pct(floorLat, 50).toFixed(1)} ms p99 ${pct(floorLat, 99).toFixed(1)} ms; /attach p50 ${pct(lat, 50).toFixed(1)} ms p99 ${pct(lat, 99).toFixed(1)} ms; ratio p50 ${(pct(lat, 50) / pct(floorLat, 50)).toFixed(2)}`,
    )
  } finally {
    await st.close()
  }
}
