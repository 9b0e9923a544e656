/** Helpers for the tests that run `bridge serve` as a process of its own. */
import type { ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'

/** A loopback port free at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/**
 * Collects what `proc` prints on stdout and stderr; `listening` resolves once it prints
 * `listening on <base>` and rejects with its output when it exits first.
 */
export function untilListening(proc: ChildProcess, base: string): { listening: Promise<void>; output: () => string } {
  let out = ''
  const listening = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString()
      if (out.includes(`listening on ${base}`)) resolve()
    }
    proc.stdout!.on('data', onData)
    proc.stderr!.on('data', onData)
    proc.once('exit', (code) => reject(new Error(`bridge exited ${code}: ${out}`)))
  })
  return { listening, output: () => out }
}
