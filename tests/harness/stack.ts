import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBridge, type StartBridgeOptions, type TestBridge } from './bridge.ts'
import { startSim } from './sim.ts'

export interface Stack {
  home: string
  sim: Awaited<ReturnType<typeof startSim>>
  bridge: TestBridge
  close(): Promise<void>
}

/**
 * The herdr simulator (its own process, real PTYs) plus the real bridge in a shared temp HOME.
 * Tear-down stops only what this call started.
 */
export async function startStack(opts: { sessions?: string[]; bridge?: Omit<StartBridgeOptions, 'home'>; simEnv?: Record<string, string> } = {}): Promise<Stack> {
  const home = mkdtempSync(join(tmpdir(), 'bridge-stack-'))
  const sim = await startSim({ sessions: opts.sessions ?? ['default'], home, testMode: true, env: opts.simEnv })
  let bridge: TestBridge
  try {
    bridge = await startBridge({ ...opts.bridge, home })
  } catch (err) {
    await sim.stop()
    throw err
  }
  return {
    home,
    sim,
    bridge,
    async close() {
      await bridge.close().catch(() => {})
      await sim.stop().catch(() => {})
      rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
    },
  }
}
