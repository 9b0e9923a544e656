/**
 * /attach: streaming throughput and keystroke-to-echo latency through the bridge, against the
 * same work read straight from the herdr CLI's stdout. The CLI is a stand-in
 * (bench/_attach-cli.mjs, run as BRIDGE_HERDR_BIN) that streams at several hundred MB/s and
 * echoes input at once, so the floor is not the simulator's terminal and the bridge's own cost
 * (line parsing, base64, WebSocket framing) shows. The bridge runs in its own process
 * (bench/_bridge-child.ts), so the WebSocket client here does not share its thread.
 *   throughput: 200 MB of terminal frames until an end marker, MB/s
 *   latency:    one byte typed until its echo arrives, p50/p99
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { WebSocket } from 'undici'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { startSim } from '../tests/harness/sim.ts'
import { spawnBridge, type BridgeProc } from './_bridge.ts'

const MB = 200
const KEYS = 300
const CLI = join(import.meta.dirname, '_attach-cli.mjs')
const MARK = 'END-OF-STREAM'
const MARK_B64 = Buffer.from(MARK).toString('base64')
const STREAM = '\x02S'

interface Probe {
  /** Payload MB/s of one full stream. */
  stream(): Promise<number>
  echo(c: string): Promise<number>
  close(): void
}

function direct(): Probe {
  const child = spawn(process.execPath, [CLI], { env: { ...process.env, BENCH_ATTACH_MB: String(MB) }, stdio: ['pipe', 'pipe', 'ignore'] })
  const send = (bytes: string) => child.stdin.write(JSON.stringify({ type: 'terminal.input', bytes: Buffer.from(bytes, 'latin1').toString('base64') }) + '\n')
  // One reader for the child's life: the tail of what arrived, checked for what is awaited.
  let tail = ''
  let want: { s: string; done: () => void } | null = null
  child.stdout.on('data', (d: Buffer) => {
    if (!want) return
    tail = (tail + d.toString('latin1', Math.max(0, d.length - 256))).slice(-512)
    if (tail.includes(want.s)) {
      const w = want
      want = null
      w.done()
    }
  })
  const until = (s: string) =>
    new Promise<void>((done) => {
      tail = ''
      want = { s, done }
    })
  return {
    async stream() {
      const t0 = performance.now()
      const got = until(MARK_B64)
      send(STREAM)
      await got
      return MB / ((performance.now() - t0) / 1000)
    },
    async echo(c) {
      const t0 = performance.now()
      const got = until(`"${Buffer.from(c).toString('base64')}"`)
      send(c)
      await got
      return performance.now() - t0
    },
    close: () => child.kill(),
  }
}

async function viaBridge(wsUrl: string, token: string, pane: string): Promise<Probe> {
  const ws = new WebSocket(`${wsUrl}/attach?pane=${encodeURIComponent(pane)}&token=${token}&mode=control&cols=120&rows=40`)
  ws.binaryType = 'arraybuffer'
  await new Promise((r, j) => {
    ws.addEventListener('open', r)
    ws.addEventListener('error', j)
  })
  let onMessage: (b: Buffer) => void = () => {}
  ws.addEventListener('message', (e) => onMessage(Buffer.from(e.data as ArrayBuffer)))
  return {
    stream: () =>
      new Promise((resolve) => {
        const t0 = performance.now()
        onMessage = (b) => {
          if (b.length <= 64 && b.toString('latin1').includes(MARK)) resolve(MB / ((performance.now() - t0) / 1000))
        }
        ws.send(Buffer.from(STREAM, 'latin1'))
      }),
    echo: (c) =>
      new Promise((resolve) => {
        const t0 = performance.now()
        onMessage = (b) => {
          if (b.toString('latin1') === c) resolve(performance.now() - t0)
        }
        ws.send(Buffer.from(c, 'latin1'))
      }),
    close: () => ws.close(),
  }
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]

async function echoes(p: Probe): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < KEYS; i++) out.push(await p.echo('abcdefghijklmnopqrstuvwxyz'[i % 26]))
  return out
}

export async function run(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'bench-attach-'))
  const sim = await startSim({ home, testMode: true })
  let bridge: BridgeProc | null = null
  try {
    bridge = await spawnBridge(home, { BRIDGE_HERDR_BIN: CLI, BENCH_ATTACH_MB: String(MB) })
    const pane = (await sim.request('workspace.create', { cwd: home })).root_pane.pane_id
    const d = direct()
    await d.echo('w') // started
    const floorTp = Math.max(await d.stream(), await d.stream())
    const floorLat = await echoes(d)
    d.close()
    const b = await viaBridge(bridge.wsUrl, bridge.token, pane)
    await b.echo('w')
    const cpu0 = bridge.cpuMs()
    const client0 = process.cpuUsage()
    const bridgeTp = Math.max(await b.stream(), await b.stream())
    const cpuPerMb = (bridge.cpuMs() - cpu0) / (2 * MB)
    const client = process.cpuUsage(client0)
    const clientPerMb = (client.user + client.system) / 1000 / (2 * MB)
    const lat = await echoes(b)
    b.close()
    console.log(
      `throughput (${MB} MB, best of 2): floor (CLI stand-in stdout) ${floorTp.toFixed(0)} MB/s, /attach ${bridgeTp.toFixed(0)} MB/s, ratio ${(bridgeTp / floorTp).toFixed(2)}   (target ≥ 0.8)`,
    )
    console.log(
      `  (information) CPU per MB relayed: the bridge (its own process) ${cpuPerMb.toFixed(2)} ms, this WebSocket client ${clientPerMb.toFixed(2)} ms; at /attach's rate they keep ${((cpuPerMb * bridgeTp) / 10).toFixed(0)} % and ${((clientPerMb * bridgeTp) / 10).toFixed(0)} % of a core busy`,
    )
    const needed = (cpuPerMb * 0.8 * floorTp) / 1000
    if (needed > 1)
      console.log(
        `  (information) relaying at 0.8× the floor (${(0.8 * floorTp).toFixed(0)} MB/s) at ${cpuPerMb.toFixed(2)} ms per MB needs ${needed.toFixed(2)} cores of CPU for the bridge process, whose relay runs on one thread: the throughput target is out of its reach here`,
      )
    console.log(
      `keystroke→echo (${KEYS}): floor p50 ${pct(floorLat, 50).toFixed(2)} ms p99 ${pct(floorLat, 99).toFixed(2)} ms; /attach p50 ${pct(lat, 50).toFixed(2)} ms p99 ${pct(lat, 99).toFixed(2)} ms; p50 over floor +${(pct(lat, 50) - pct(floorLat, 50)).toFixed(2)} ms   (target ≤ +2 ms)`,
    )
  } finally {
    await bridge?.stop().catch(() => {})
    await sim.stop().catch(() => {})
    rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
  }
}
