import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../../storage/index.ts'

/**
 * Which agent states have been alerted, kept in `notify-alerted.json` as `{"<pane>": <seq>}`
 * (herdr's `state_change_seq` of the state the alert was for; -1 when it could not be read).
 * A restart reads it back, so an agent still blocked in the same state is not alerted twice,
 * one blocked anew while the bridge was down is, and one that moved on while it was down has
 * its alert dismissed. A pane is dropped once its alert is dismissed.
 */
export interface AlertedStore {
  /** The seq of the state last alerted for `pane`, or undefined when nothing is shown for it. */
  get(pane: string): number | undefined
  set(pane: string, seq: number): Promise<void>
  delete(pane: string): Promise<void>
  panes(): string[]
}

const KEY = 'notify-alerted.json'
/** Bounded: a bridge that runs for months with panes coming and going keeps the newest. */
export const MAX_ALERTED = 2000

export async function createAlertedStore(storage: Storage): Promise<AlertedStore> {
  const raw = (await readJson<unknown>(storage, KEY, 'alerted list')) ?? {}
  const map = new Map<string, number>()
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [pane, seq] of Object.entries(raw as Record<string, unknown>)) if (typeof seq === 'number' && Number.isInteger(seq)) map.set(pane, seq)
  }
  let writing: Promise<void> = Promise.resolve()
  const save = () => {
    const out = Object.fromEntries(map)
    const p = writing.then(() => writeJson(storage, KEY, out))
    writing = p.catch(() => {})
    return p
  }
  return {
    get: (pane) => map.get(pane),
    async set(pane, seq) {
      map.delete(pane)
      map.set(pane, seq)
      if (map.size > MAX_ALERTED) map.delete(map.keys().next().value!)
      await save()
    },
    async delete(pane) {
      if (map.delete(pane)) await save()
    },
    panes: () => [...map.keys()],
  }
}
