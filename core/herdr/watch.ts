import type { ConsolaInstance } from 'consola'
import { payloadText, type Bus } from '../bus.ts'
import type { Herdr } from './index.ts'
import { herdrConfigDir, sessionSocketPath } from './discovery.ts'
import { newerThanTested } from './server-version.ts'
import { HERDR_PROTOCOL } from '../version.ts'

export interface WatchOptions {
  herdr: Herdr
  bus: Bus
  log: ConsolaInstance
  env: NodeJS.ProcessEnv
  /** How often to repeat that no herdr session is reachable. */
  everyMs?: number
}

/**
 * What the daemon says about herdr (`createBridge({ herdrLines: true })`, as `bridge serve` runs
 * it; started before the ingester, so it sees every session's first connect): one line per session found or lost (from the ingester's multiplexer_connected/
 * disconnected), a warning once per session speaking an older protocol, a notice once per
 * session for a herdr newer than any this bridge was tested with, and — at start and every
 * minute while true — that no session is reachable and where it looked.
 */
export function watchHerdr(o: WatchOptions): () => void {
  const found = new Set<string>()
  const warnedOld = new Set<string>()
  let stopped = false

  const describe = async (session: string, socket: string) => {
    let what = ''
    try {
      const pong = await o.herdr.call<{ version: string; protocol: number }>(session, 'ping', {}, { timeoutMs: 2000 })
      what = ` (herdr ${pong.version}, protocol ${pong.protocol})`
      if (Number(pong.protocol) < HERDR_PROTOCOL && !warnedOld.has(session)) {
        warnedOld.add(session)
        o.log.warn(`herdr session ${session} speaks protocol ${pong.protocol}, older than ${HERDR_PROTOCOL} this bridge was built for; update herdr if something is missing`)
      }
      const newer = newerThanTested(pong)
      if (newer && !warnedOld.has(session)) {
        warnedOld.add(session)
        o.log.info(`herdr session ${session}: ${newer}`)
      }
    } catch {}
    if (!stopped) o.log.info(`herdr session ${session} found at ${socket}${what}`)
  }

  const unsubscribe = o.bus.subscribe({
    name: 'serve-herdr-lines',
    deliver(ev) {
      if (ev.source !== 'bridge') return
      const session = payloadText(ev, 'session', 'default')
      if (ev.type === 'multiplexer_connected' && !found.has(session)) {
        found.add(session)
        void describe(session, payloadText(ev, 'socket', o.herdr.socketPath(session)))
      } else if (ev.type === 'multiplexer_disconnected' && found.delete(session)) {
        o.log.warn(`herdr session ${session} lost: ${payloadText(ev, 'reason', 'disconnected')}`)
      }
    },
  })

  const nobody = async () => {
    if (found.size || stopped) return
    const answers = await Promise.allSettled(o.herdr.sessions().map((s) => o.herdr.call(s, 'ping', {}, { timeoutMs: 5000 })))
    // A ping that timed out reached a socket that is there (a busy herdr, or a busy bridge): not "unreachable".
    if (found.size || stopped || answers.some((a) => a.status === 'fulfilled' || (a.reason as { code?: string })?.code === 'timeout')) return
    o.log.warn(
      `no herdr session is reachable (looked at ${sessionSocketPath('default', o.env)} and ${herdrConfigDir(o.env)}/sessions/*/herdr.sock): install herdr, start it, or set HERDR_SOCKET_PATH`,
    )
  }
  void o.herdr.ready().then(nobody)
  const timer = setInterval(() => void nobody(), o.everyMs ?? 60_000)
  timer.unref()
  return () => {
    stopped = true
    clearInterval(timer)
    unsubscribe()
  }
}
