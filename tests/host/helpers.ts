import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSim, type Sim } from '../harness/sim.ts'
import { startBridge, type TestBridge } from '../harness/bridge.ts'
import type { BusEvent } from '../../core/bus.ts'
import { until } from '../harness/wait.ts'
import type { GetResponses, PostResponses } from '../../plugins/web/app/src/lib/api-types.ts'
export { until }

/**
 * A reply, typed as the route's documented 200 body plus the one-line `error` of a failure. Tests
 * check `status` before reading the fields: an error reply carries only `error`, and a non-JSON
 * answer comes back as its text.
 */
export interface HostReply<T> {
  status: number
  type: string
  body: T & { error?: string }
}

export interface HostStack {
  home: string
  sim: Sim
  bridge: TestBridge
  /** Bridge bus events published since start. */
  events: BusEvent[]
  /** POST JSON; returns status, content type and the parsed (or text) body. */
  post<P extends keyof PostResponses>(path: P, json: unknown): Promise<HostReply<PostResponses[P]>>
  /** GET; `path` may carry a query string. */
  get<P extends keyof GetResponses>(path: P | `${P}?${string}`): Promise<HostReply<GetResponses[P]>>
  /** Polls pane.read (recent) of a client pane id until `pred` holds; returns the screen text. */
  screenUntil(pane: string, pred: (text: string) => boolean, timeoutMs?: number): Promise<string>
  close(): Promise<void>
}

async function parse<T>(res: Response): Promise<HostReply<T>> {
  const type = res.headers.get('content-type') ?? ''
  return { status: res.status, type, body: type.startsWith('application/json') ? await res.json() : await res.text() }
}

/**
 * The simulator and the bridge in one temp HOME, with the simulator's fake agents on the
 * bridge's PATH (so `claude` counts as installed) and every bus event recorded.
 */
export async function startHostStack(opts: { sessions?: string[]; simEnv?: Record<string, string> } = {}): Promise<HostStack> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'host-stack-')))
  const sim = await startSim({ home, testMode: true, sessions: opts.sessions, env: opts.simEnv })
  let bridge: TestBridge
  try {
    bridge = await startBridge({ home, env: { PATH: sim.clientEnv().PATH } })
  } catch (err) {
    await sim.stop()
    throw err
  }
  const events: BusEvent[] = []
  bridge.bridge.ctx.bus.subscribe({ deliver: (e) => void events.push(e), limit: 100_000 })
  return {
    home,
    sim,
    bridge,
    events,
    post: async (path, json) => parse(await bridge.request(path, { method: 'POST', json })),
    get: async (path) => parse(await bridge.request(path)),
    async screenUntil(pane, pred, timeoutMs = 20_000) {
      const [session, id] = pane.includes('/') ? pane.split('/') : ['default', pane]
      let text = ''
      // Matched text is returned as-is, so an empty screen that satisfies `pred` still counts.
      const hit = await until(
        async () => {
          text = (await sim.request('pane.read', { pane_id: id, source: 'recent', lines: 200 }, session)).read.text
          return pred(text) ? { text } : undefined
        },
        () => `the screen of ${pane} to match; last screen:\n${text}`,
        timeoutMs,
        100,
      )
      return hit.text
    },
    async close() {
      await bridge.close().catch(() => {})
      await sim.stop().catch(() => {})
      rmSync(home, { recursive: true, force: true })
    },
  }
}
