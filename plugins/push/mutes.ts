import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../../storage/index.ts'
import { isObj } from '../../lib/transcript/entry.ts'

/**
 * Per-device pane mutes (`POST /notify/mute`, `/notify/unmute`), kept in `notify-mutes.json`:
 * `{"<device id>": {"<pane>": <until, unix ms, or 0 for until unmuted>}}`. The per-device
 * channels (fcm, webpush) skip a muted device's alerts for that pane.
 */
export interface MuteStore {
  mute(device: string, pane: string, until: number): Promise<void>
  unmute(device: string, pane: string): Promise<boolean>
  /** Devices whose mute of `pane` holds now, or that are in their quiet hours. */
  mutedFor(pane: string): string[]
  /** This device's quiet hours, or null. */
  quiet(device: string): QuietHours | null
  /** Sets (or, with null, clears) this device's quiet hours. */
  setQuiet(device: string, q: QuietHours | null): Promise<void>
  /** This device's active mutes. */
  of(device: string): Record<string, number>
  forgetDevice(device: string): Promise<void>
}

/**
 * A daily window without alerts for one device, in its own local time: minutes after midnight
 * (`from` inclusive, `to` exclusive; across midnight when `from` > `to`; equal means never), and
 * `utc_offset`, the device's minutes ahead of UTC, so the window follows the device's clock.
 */
export interface QuietHours {
  from: number
  to: number
  utc_offset: number
}

/** Whether `now` (unix ms) falls in the window. */
export function inQuietHours(q: QuietHours, now: number): boolean {
  const m = (((Math.floor(now / 60_000) + q.utc_offset) % 1440) + 1440) % 1440
  if (q.from === q.to) return false
  return q.from < q.to ? m >= q.from && m < q.to : m >= q.from || m < q.to
}

const QUIET_KEY = 'notify-quiet.json'
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
  const quiet = new Map<string, QuietHours>()
  const rawQuiet = (await readJson<unknown>(storage, QUIET_KEY, 'quiet hours')) ?? {}
  const minute = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0 && (x as number) < 1440
  const offset = (x: unknown): x is number => Number.isInteger(x) && Math.abs(x as number) <= 1440
  if (isObj(rawQuiet))
    for (const [device, q] of Object.entries(rawQuiet)) {
      if (!isObj(q)) continue
      const { from, to, utc_offset } = q
      if (minute(from) && minute(to) && offset(utc_offset)) quiet.set(device, { from, to, utc_offset })
    }
  let writingQuiet: Promise<void> = Promise.resolve()
  const setQuiet = async (device: string, q: QuietHours | null): Promise<void> => {
    if (q) quiet.set(device, q)
    else if (!quiet.delete(device)) return
    const doc = Object.fromEntries(quiet)
    const p = writingQuiet.then(() => writeJson(storage, QUIET_KEY, doc))
    writingQuiet = p.catch(() => {})
    await p
  }
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
      const out = new Set<string>()
      for (const [device, m] of mutes) {
        const u = m.get(pane)
        if (u !== undefined && active(u)) out.add(device)
      }
      for (const [device, q] of quiet) if (inQuietHours(q, now())) out.add(device)
      return [...out]
    },
    quiet: (device) => quiet.get(device) ?? null,
    setQuiet,
    of(device) {
      return Object.fromEntries([...(mutes.get(device) ?? [])].filter(([, u]) => active(u)))
    },
    async forgetDevice(device) {
      if (mutes.delete(device)) await save()
      await setQuiet(device, null)
    },
  }
}
