// Helpers for the fault, load and fuzz suites: bounded requests, deadline polling, heap samples.
import v8 from 'node:v8'
import vm from 'node:vm'
export { until } from '../harness/wait.ts'

export interface Answer {
  status: number
  ms: number
  body: string
}

/**
 * A request that must answer within `boundMs`: a hang becomes status 0 (the caller asserts on
 * it) instead of a test that stalls until vitest's timeout.
 */
export async function bounded(run: (signal: AbortSignal) => Promise<Response>, boundMs: number): Promise<Answer> {
  const started = performance.now()
  try {
    const res = await run(AbortSignal.timeout(boundMs))
    const body = await res.text()
    return { status: res.status, ms: performance.now() - started, body }
  } catch (err) {
    if ((err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError') return { status: 0, ms: performance.now() - started, body: 'no answer within bound' }
    throw err
  }
}

let gcFn: (() => void) | undefined
/** A full GC (the flag is set at runtime, so no special node options are needed). */
export function gc(): void {
  if (!gcFn) {
    v8.setFlagsFromString('--expose-gc')
    gcFn = vm.runInNewContext('gc') as () => void
  }
  gcFn()
}

/** Heap in use after two full collections, in bytes: what is actually retained. */
export async function retainedHeap(): Promise<number> {
  gc()
  await new Promise((r) => setImmediate(r))
  gc()
  return process.memoryUsage().heapUsed
}

export const MB = 1024 * 1024

/** Live Timeout handles in this process (intervals and timeouts a stream holds while open). */
export const activeTimers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
