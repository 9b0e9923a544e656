import type { Connection } from '../wire.ts'
import type { SessionState } from '../state.ts'

/** Returned by a handler that took over the connection (subscriptions, waits, streams). */
export const STREAMING = Symbol('streaming')

export interface MethodContext {
  s: SessionState
  /** The request id, echoed in the reply. */
  id: string
  conn: Connection
  /** Stops this session's server in place (sim.stop / server.stop). */
  stopServer(opts: { fresh: boolean; restartAfterMs?: number }): void
}

export type Result = { type: string } & Record<string, unknown>

// Params arrive already checked against the method's schema, so handlers read them untyped.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- schema-checked before dispatch; one table serves every method's params
export type Params = any

export type Handler = (params: Params, ctx: MethodContext) => Result | typeof STREAMING | Promise<Result | typeof STREAMING>

export type MethodTable = Record<string, Handler>

export const ok = (): Result => ({ type: 'ok' })
