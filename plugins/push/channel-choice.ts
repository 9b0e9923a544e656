import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../../storage/index.ts'
import { isJsonObject } from '../../lib/config-schema.ts'

/**
 * Which per-device channels each device turned off for its own alerts (`POST /notify/channels`),
 * kept in `notify-channels-off.json`: `{"<device id>": ["webpush", …]}`. A device absent, or a
 * channel not listed, gets alerts on it (the default). Bridge-wide channels (ntfy, webhooks) are
 * never listed: they are not any one device's to turn off.
 */
export interface ChannelChoiceStore {
  /** The channels this device turned off. */
  offFor(device: string): string[]
  /** Per channel, the devices that turned it off (for an alert's `off`). */
  offByChannel(): Record<string, string[]>
  set(device: string, channel: string, on: boolean): Promise<void>
  forgetDevice(device: string): Promise<void>
}

const KEY = 'notify-channels-off.json'
/** Channel names one device may list; more than any bridge runs, so a client cannot grow the file. */
const MAX_PER_DEVICE = 32

export async function createChannelChoiceStore(storage: Storage): Promise<ChannelChoiceStore> {
  const raw = (await readJson<unknown>(storage, KEY, 'alert channel choices')) ?? {}
  const off = new Map<string, Set<string>>()
  if (isJsonObject(raw))
    for (const [device, list] of Object.entries(raw)) {
      if (!Array.isArray(list)) continue
      const names = list.filter((c): c is string => typeof c === 'string' && c.length > 0)
      if (names.length) off.set(device, new Set(names.slice(0, MAX_PER_DEVICE)))
    }
  // Writes go one after another, each the whole document as it is then.
  let writing: Promise<void> = Promise.resolve()
  const save = () => {
    const doc = Object.fromEntries([...off].map(([d, s]) => [d, [...s].sort()]))
    const p = writing.then(() => writeJson(storage, KEY, doc))
    writing = p.catch(() => {})
    return p
  }
  return {
    offFor: (device) => [...(off.get(device) ?? [])].sort(),
    offByChannel() {
      const out: Record<string, string[]> = {}
      for (const [device, set] of off) for (const c of set) (out[c] ??= []).push(device)
      return out
    },
    async set(device, channel, on) {
      const s = off.get(device) ?? new Set<string>()
      if (on) {
        if (!s.delete(channel)) return
      } else {
        if (s.has(channel) || s.size >= MAX_PER_DEVICE) return
        s.add(channel)
      }
      if (s.size) off.set(device, s)
      else off.delete(device)
      await save()
    },
    async forgetDevice(device) {
      if (off.delete(device)) await save()
    },
  }
}
