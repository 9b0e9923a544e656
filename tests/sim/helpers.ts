import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { startSim, type Sim, type SimJson, type StartSimOptions } from '../harness/sim.ts'

/** Starts one simulator for the file (in a temp HOME) and stops it afterwards. */
export function useSim(opts: Omit<StartSimOptions, 'home'> = {}): { sim: () => Sim; home: () => string } {
  let sim: Sim | undefined
  let home = ''
  beforeAll(async () => {
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'herdr-sim-test-')))
    sim = await startSim({ testMode: true, ...opts, home })
  }, 40000)
  afterAll(async () => {
    await sim?.stop()
    fs.rmSync(home, { recursive: true, force: true })
  }, 40000)
  return {
    sim: () => {
      if (!sim) throw new Error('simulator not started')
      return sim
    },
    home: () => home,
  }
}

/** Sends raw bytes on a fresh connection and collects everything until the server closes. */
export function rawExchange(socketPath: string, payload: string | Buffer, opts: { endAfterWrite?: boolean; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(socketPath)
    let out = ''
    const timer = setTimeout(() => {
      s.destroy()
      reject(new Error(`no close within ${opts.timeoutMs ?? 10000} ms; got ${JSON.stringify(out)}`))
    }, opts.timeoutMs ?? 10000)
    s.on('connect', () => {
      s.write(payload)
      if (opts.endAfterWrite) s.end()
    })
    s.on('data', (d) => (out += d.toString('utf8')))
    s.on('close', () => {
      clearTimeout(timer)
      resolve(out)
    })
    s.on('error', () => {})
  })
}

/** The JSON lines of a raw exchange: herdr replies and events, as the simulator's own calls return them. */
export function lines(text: string): SimJson[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
}
