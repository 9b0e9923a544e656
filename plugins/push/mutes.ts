import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../../storage/index.ts'

/**
 * Per-device pane mutes (`POST /notify/mute`, `/notify/unmute`), kept in `notify-mutes.json`:
 * `{"<device id>": {"<pane>": <until, unix ms, or 0 for until unmuted>}}`. The per-device
 * channels (fcm, webpush) skip a muted device's alerts for that pane.
 */
export interface MuteStore {
  mute(device: string, pane: string, until: number): Promise<void>
  unmute(device: string, pane: string): Promise<boolean>
  /** Devices whose mute of `pane` holds now. */
  mutedFor(pane: string): string[]
  /** This device's active mutes. */
  of(device: string): Record<string, number>
  forgetDevice(device: string): Promise<void>
}

const KEY = 'notify-mutes.json'
/** A device's mutes are capped so one client cannot grow the file without bound. */
export const MAX_MUTES_PER_DEVICE = 500

export async function createMuteStore(storage: Storage, now: () => number): Promise<MuteStore> {
  const raw = (await readJson<unknown>(storage, KEY, 'mute list')) ?? {}
  const mutes = new Map<string, Map<string, number>>()
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [device, panes] of Object.entries(raw as Record<string, unknown>)) {
      if (!panes || typeof panes !== 'object') continue
      const m = new Map<string, number>()
      for (const [pane, until] of Object.entries(panes as Record<string, unknown>)) if (typeof until === 'number' && until >= 0) m.set(pane, until)
      if (m.size) mutes.set(device, m)
    }
  }
  const active = (until: number) => until === 0 || until > now()
  let writing: Promise<void> = Promise.resolve()
  const save = () => {
    const out: Record<string, Record<string, number>> = {}
    for (const [device, m] of mutes) {
      const live = [...m].filter(([, u]) => active(u))
      if (live.length) out[device] = Object.fromEntries(live)
    }
    const p = writing.then(() => writeJson(storage, KEY, out))
    writing = p.catch(() => {})
    return p
  }
  return {
    async mute(device, pane, until) {
      let m = mutes.get(device)
      if (!m) mutes.set(device, (m = new Map()))
      for (const [p, u] of m) if (!active(u)) m.delete(p)
      m.delete(pane)
      if (m.size >= MAX_MUTES_PER_DEVICE) m.delete(m.keys().next().value!)
      m.set(pane, until)
      await save()
    },
    async unmute(device, pane) {
      const had = mutes.get(device)?.delete(pane) ?? false
      if (had) await save()
      return had
    },
    mutedFor(pane) {
      const out: string[] = []
      for (const [device, m] of mutes) {
        const u = m.get(pane)
        if (u !== undefined && active(u)) out.push(device)
      }
      return out
    },
    of(device) {
      return Object.fromEntries([...(mutes.get(device) ?? [])].filter(([, u]) => active(u)))
    },
    async forgetDevice(device) {
      if (mutes.delete(device)) await save()
    },
  }
}
