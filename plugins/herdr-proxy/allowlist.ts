import { HttpError } from '../../core/respond.ts'
import { SessionConflictError, stripIds } from '../../core/herdr/ids.ts'

/** herdr methods a client may call through POST /herdr; everything else is 403. */
export const READ_METHODS: ReadonlySet<string> = new Set([
  'session.snapshot',
  'workspace.list',
  'workspace.get',
  'worktree.list',
  'tab.list',
  'tab.get',
  'pane.list',
  'pane.get',
  'agent.list',
  'agent.get',
])

export const WRITE_METHODS: ReadonlySet<string> = new Set([
  'worktree.create',
  'worktree.open',
  'worktree.remove',
  'workspace.create',
  'tab.create',
  'tab.close',
  'tab.focus',
  'tab.rename',
  'pane.split',
  'pane.close',
  'pane.focus',
  'agent.focus',
])

/** Writes that take `focus`: app-created items must not steal the operator's foreground. */
const FOCUS_WRITES: ReadonlySet<string> = new Set(['worktree.create', 'worktree.open', 'workspace.create', 'tab.create', 'pane.split'])

export const isAllowed = (method: string) => READ_METHODS.has(method) || WRITE_METHODS.has(method)

export interface ProxyCall {
  method: string
  params: Record<string, unknown>
  /** The session the call goes to: explicit, else inferred from qualified ids, else default. */
  session: string
}

const WANT = 'want {method, params}'
const isPlainObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x)

/** Validates a /herdr body into the call to make; throws the 400/403 HttpError otherwise. */
export function prepareCall(body: unknown): ProxyCall {
  if (!isPlainObject(body)) throw new HttpError(400, WANT)
  const { method, params = {}, session } = body
  if (typeof method !== 'string' || !method.trim()) throw new HttpError(400, WANT)
  if (!isAllowed(method)) throw new HttpError(403, `method not allowed: ${method}`)
  if (params !== null && !isPlainObject(params)) throw new HttpError(400, WANT)
  if (session !== undefined && session !== null && typeof session !== 'string') throw new HttpError(400, 'session: want a string')
  // The id walk below recurses; herdr's params are a few levels deep at most.
  if (nestedDeeperThan(params, MAX_PARAMS_DEPTH)) throw new HttpError(400, `params: nested deeper than ${MAX_PARAMS_DEPTH} levels`)
  let stripped: { session: string; value: Record<string, unknown> }
  try {
    stripped = stripIds(params ?? {}, session ?? undefined)
  } catch (err) {
    if (err instanceof SessionConflictError) throw new HttpError(400, err.message)
    throw err
  }
  const out = { ...stripped.value }
  if (FOCUS_WRITES.has(method) && out.focus === undefined) out.focus = false
  return { method, params: out, session: stripped.session }
}

export const MAX_PARAMS_DEPTH = 32

/** Whether arrays/objects nest deeper than `max` (checked without recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length) {
    const [v, depth] = stack.pop()!
    if (!v || typeof v !== 'object') continue
    if (depth >= max) return true
    for (const child of Object.values(v)) if (child && typeof child === 'object') stack.push([child, depth + 1])
  }
  return false
}
