/**
 * The first-connect counting pass in a worker thread: a gigabyte of lines decoded and parsed
 * grows a V8 heap that a full GC empties but does not give back; in a worker that heap goes
 * away with the thread, and the main thread keeps answering meanwhile. Loads the kind's counter
 * module (its `count` export), counts [from, to) and hands back the index arrays (transferred).
 */
import { open } from 'node:fs/promises'
import { parentPort, workerData } from 'node:worker_threads'
import { countRange, type LineCounter } from '../../lib/transcript/count-pass.ts'

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
    const r = await countRange(fh, job.from, job.to, job.maxLine, mod.count as LineCounter)
    // Trimmed to n before transfer, so the main thread holds 16 bytes a line and no slack.
    const offs = r.offs.slice(0, r.n)
    const lens = r.lens.slice(0, r.n)
    const cum = r.cum.slice(0, r.n)
    parentPort!.postMessage({ ...r, offs, lens, cum }, [offs.buffer, lens.buffer, cum.buffer])
  } finally {
    await fh.close()
  }
}

await main(workerData as CountJob)
