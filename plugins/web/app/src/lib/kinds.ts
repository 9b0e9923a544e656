/** GET /agent-kinds: what each agent kind can do on this bridge (null from a bridge without it). */
import type { Api } from './api.ts'

export interface KindCaps {
  kind: string
  card: boolean
  permission_modes?: string[]
  mode_cycle: boolean
  transcript: boolean
  subagents: boolean
  commands: boolean
  usage: boolean
  question: boolean
  /** What a start may set (`POST /agent/start` `options`): a choice of `values`, else free text. */
  start_options?: Array<{ name: string; label: string; values?: string[]; hint?: string }>
}

const cache = new WeakMap<Api, Promise<Map<string, KindCaps> | null>>()

export function loadKinds(api: Api): Promise<Map<string, KindCaps> | null> {
  let p = cache.get(api)
  if (!p) {
    p = api.get('/agent-kinds').then(
      (r) => new Map((Array.isArray(r?.kinds) ? (r.kinds as KindCaps[]) : []).map((k) => [String(k.kind).toLowerCase(), k])),
      () => null,
    )
    cache.set(api, p)
  }
  return p
}

/** A kind's capabilities: undefined while unknown or from an older bridge (then show everything). */
export function capsOf(kinds: Map<string, KindCaps> | null | undefined, kind: string | undefined): KindCaps | undefined | null {
  if (!kinds) return undefined
  // A kind the bridge does not list has no capabilities beyond the generic card.
  return kinds.get((kind ?? '').trim().toLowerCase()) ?? null
}
