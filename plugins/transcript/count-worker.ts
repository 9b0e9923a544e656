/**
 * The first-connect counting pass in a worker thread: a gigabyte of lines decoded and parsed
 * grows a V8 heap that a full GC empties but does not give back; in a worker that heap goes
 * away with the thread, and the main thread keeps answering meanwhile. Loads the kind's counter
 * module (its `count` export), counts [from, to) and hands back the index arrays (transferred).
 */
import { open } from 'node:fs/promises'
import { parentPort, workerData } from 'node:worker_threads'
import { countBlocks, flatten, type LineCounter } from '../../lib/transcript/count-pass.ts'

export interface CountJob {
  path: string
  from: number
  to: number
  maxLine: number
  /** URL of a module whose `count` export counts one line. */
  counter: string
}

async function main(job: CountJob): Promise<void> {
  const mod = (await import(job.counter)) as { count?: unknown }
  if (typeof mod.count !== 'function') throw new Error(`${job.counter} exports no count function`)
  const fh = await open(job.path, 'r')
  try {
    // Joined here into arrays exactly n long, then handed over (not copied): the main thread
    // adopts them as its index, so nothing of this count is allocated twice on its side.
    const r = flatten(await countBlocks(fh, job.from, job.to, job.maxLine, mod.count as LineCounter))
    parentPort!.postMessage(r, [r.offs.buffer as ArrayBuffer, r.lens.buffer as ArrayBuffer, r.cum.buffer as ArrayBuffer])
  } finally {
    await fh.close()
  }
}

await main(workerData as CountJob)
