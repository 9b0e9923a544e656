/**
 * The bridge runs inside the test process, so an 'error' nobody listens for (a stream, a child
 * process) or a rejection nobody awaits is the daemon dying. Each such event fails the test
 * during which it happened, naming it, instead of being one line after the run.
 */
import { afterEach } from 'vitest'

const seen: string[] = []
const record = (kind: string) => (err: unknown) => {
  const e = err as NodeJS.ErrnoException
  seen.push(`${kind}: ${e?.code ? `${e.code} ` : ''}${e?.message ?? String(err)}`)
}
process.on('uncaughtException', record('uncaught exception'))
process.on('unhandledRejection', record('unhandled rejection'))

afterEach(() => {
  if (!seen.length) return
  const all = seen.splice(0)
  throw new Error(`the test process saw ${all.length} unhandled error(s): ${all.join(' | ')}`)
})
