/**
 * Session-qualified ids: ids of a non-default session leave the bridge as `<session>/<id>` and
 * come back the same way. Only string values under id keys are rewritten, at any depth.
 */

export const DEFAULT_SESSION = 'default'

const ID_KEYS = new Set([
  'pane_id',
  'tab_id',
  'workspace_id',
  'focused_pane_id',
  'focused_tab_id',
  'focused_workspace_id',
  'active_tab_id',
  'split_from',
  'target_pane_id',
  'previous_pane_id',
  'previous_tab_id',
  'previous_workspace_id',
  'closed_tab_id',
  'closed_workspace_id',
  'open_workspace_id',
  'source_workspace_id',
  'before_workspace_id',
])
const ID_LIST_KEYS = new Set(['workspace_ids'])
/** Keys that may hold a pane id on the way in (agent targets). */
const INBOUND_EXTRA = new Set(['target'])

export function isDefaultSession(s: string | undefined | null): boolean {
  return !s || s === DEFAULT_SESSION
}

/** `work/w1:p2` → {session:'work', id:'w1:p2'}; a bare id is the default session. */
export function splitId(qualified: string): { session: string; id: string } {
  const i = qualified.indexOf('/')
  if (i < 0) return { session: DEFAULT_SESSION, id: qualified }
  const session = qualified.slice(0, i)
  return { session: isDefaultSession(session) ? DEFAULT_SESSION : session, id: qualified.slice(i + 1) }
}

export function qualifyId(session: string, id: string): string {
  return isDefaultSession(session) || !id ? id : `${session}/${id}`
}

/** Returns a copy of `value` with every id qualified for `session`. */
export function qualify<T>(session: string, value: T): T {
  if (isDefaultSession(session)) return value
  return walk(value, (id) => qualifyId(session, id), ID_KEYS) as T
}

/**
 * `qualify` without the copy, for trees the caller owns (a reply it just parsed): a snapshot of
 * a few hundred panes is qualified on every /snapshot, so the copy is worth avoiding.
 */
export function qualifyInPlace<T>(session: string, value: T): T {
  if (!isDefaultSession(session)) walkInPlace(value, (id) => qualifyId(session, id))
  return value
}

/**
 * herdr's objects nest a few levels; past MAX_DEPTH a value is left as it is rather than risk the
 * stack on hostile input (ids that deep are not herdr's).
 */
const MAX_DEPTH = 64

function walkInPlace(value: unknown, map: (id: string) => string, depth = 0): void {
  if (depth > MAX_DEPTH) return
  if (Array.isArray(value)) {
    for (const v of value) if (v && typeof v === 'object') walkInPlace(v, map, depth + 1)
    return
  }
  if (!value || typeof value !== 'object') return
  const o = value as Record<string, unknown>
  for (const k in o) {
    const v = o[k]
    if (typeof v === 'string') {
      if (ID_KEYS.has(k)) o[k] = map(v)
    } else if (v && typeof v === 'object') {
      if (Array.isArray(v) && ID_LIST_KEYS.has(k)) o[k] = v.map((x) => (typeof x === 'string' ? map(x) : x))
      else walkInPlace(v, map, depth + 1)
    }
  }
}

export class SessionConflictError extends Error {}

/**
 * Strips qualified ids from request params and infers their session. Ids of two sessions, or a
 * qualified id contradicting an explicit session, is a SessionConflictError.
 */
export function stripIds<T>(value: T, explicit?: string): { session: string; value: T } {
  const seen = new Set<string>()
  const out = walk(
    value,
    (id) => {
      if (!id.includes('/')) return id
      const s = splitId(id)
      seen.add(s.session)
      return s.id
    },
    new Set([...ID_KEYS, ...INBOUND_EXTRA]),
  ) as T
  if (seen.size > 1) throw new SessionConflictError(`params mix ids of sessions ${[...seen].join(' and ')}`)
  const inferred = [...seen][0]
  const ex = explicit === undefined || explicit === '' ? undefined : isDefaultSession(explicit) ? DEFAULT_SESSION : explicit
  if (ex && inferred && ex !== inferred) throw new SessionConflictError(`session ${ex} contradicts ids of session ${inferred}`)
  // Bare ids with no explicit session belong to the default session.
  return { session: ex ?? inferred ?? DEFAULT_SESSION, value: out }
}

function walk(value: unknown, map: (id: string) => string, keys: Set<string>, depth = 0): unknown {
  if (depth > MAX_DEPTH) return value
  if (Array.isArray(value)) return value.map((v) => walk(v, map, keys, depth + 1))
  if (!value || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    const next =
      typeof v === 'string' && keys.has(k) ? map(v) : Array.isArray(v) && ID_LIST_KEYS.has(k) ? v.map((x) => (typeof x === 'string' ? map(x) : x)) : walk(v, map, keys, depth + 1)
    // A client-sent `__proto__` key stays a plain key instead of replacing the prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: next, enumerable: true, writable: true, configurable: true })
    else out[k] = next
  }
  return out
}
