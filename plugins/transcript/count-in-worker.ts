/**
 * Runs a counting pass in a worker thread (count-worker.ts) and returns its index arrays. The
 * worker's module is found beside this one in every layout: the TypeScript sources (tests, tsx),
 * dist/ (compiled), the bundle (an entry of its own, scripts/bundle.mjs); the single executable
 * has no file to load, so there this is null and counting stays on the main thread.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { moduleBeside } from '../../lib/transcript/count-pass.ts'
import type { CountedRange } from '../../lib/transcript/count-pass.ts'
import type { CountJob } from './count-worker.ts'

const WORKER: string | undefined = moduleBeside(import.meta.url, './count-worker.ts')

/** Passes finished in a worker since start (tests read it: the pass must have left the main thread). */
let passes = 0
export const workerPasses = (): number => passes

export const canCountInWorker = (): boolean => WORKER !== undefined

/** Counts in a worker; rejects when the worker or the kind's counter module could not load. */
export function countInWorker(job: CountJob): Promise<CountedRange> {
  if (!WORKER) return Promise.reject(new Error('no counting worker in this layout'))
  return new Promise((resolve, reject) => {
    const w = WORKER.endsWith('.ts') ? new Worker(tsxBoot(WORKER), { eval: true, workerData: job }) : new Worker(new URL(WORKER), { workerData: job })
    let result: CountedRange | null = null
    w.once('message', (m: CountedRange) => (result = m))
    w.once('error', reject)
    w.once('exit', (code) => {
      if (result && code === 0) {
        passes++
        resolve(result)
      } else reject(new Error(`counting worker exited with code ${code}`))
    })
  })
}

/**
 * The TypeScript sources (tests, `node --import tsx`): a worker inherits no module hooks and
 * Node 20 applies no `--import` to it, so it registers tsx's ESM hooks itself, then loads the entry.
 */
function tsxBoot(entry: string): string {
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json')
  const api = pathToFileURL(join(dirname(pkg), JSON.parse(readFileSync(pkg, 'utf8')).exports['./esm/api'].import.default)).href
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}) })`
}
